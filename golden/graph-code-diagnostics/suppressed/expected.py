import random
import time

import tensorflow as tf


@tf.function
def seeded(x):
    salt = random.random()  # retrace-fix: ignore[RTF102]
    return x + salt + time.time()  # retrace-fix: ignore


@tf.function(reduce_retracing=True)  # retrace-fix: ignore[RTF106]
def flatten(x):
    return tf.reshape(x, [x.shape[0], -1]) + time.time()
