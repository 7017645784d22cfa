"""The traced calls come through a helper that forwards `*args`: that call cannot be rewritten.

Every recorded call site or none: the diagnostic names the site, nothing is edited.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2)])


@tf.function
def shrink(model, x, rate):
    return model(x) * (1.0 - rate)


def timed(fn, *args):
    return fn(*args)


def run(x):
    return [timed(shrink, model, x, rate) for rate in (0.1, 0.2, 0.3)]
