"""Graph demo functions called with a Python int step (rebuilt from tensorflow/tensorboard#6219)."""

import tensorflow as tf


@tf.function
def f(x, step):
    return tf.reduce_sum(tf.math.sin(x * tf.cast(step + 1, tf.float32)))


@tf.function
def g(x, step):
    return f(x, step) + tf.reduce_mean(x) * tf.cast(step, tf.float32)
