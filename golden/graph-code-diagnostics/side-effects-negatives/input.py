import random
import time

import numpy as np
import tensorflow as tf


def eager_timer(x):
    start = time.time()
    return x, time.time() - start


@tf.function
def graph_side(x):
    noise = tf.random.uniform(tf.shape(x))
    stamp = tf.timestamp()

    def numpy_noise(v):
        return v + np.random.normal(size=v.shape).astype(np.float32)

    jittered = tf.numpy_function(numpy_noise, [x], tf.float32)
    return x + noise + tf.cast(stamp, x.dtype) + jittered


def random_batch():
    return np.random.rand(4, 3), random.random()
