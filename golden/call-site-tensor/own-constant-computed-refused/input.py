"""The body builds a constant from an expression of its parameter: `tf.constant(i + 1)`.

Only `tf.constant(i[, dtype])` is rewritten with the call sites; here the proof with the
parameter as a tensor fails (the conversion of `i + 1` is not the parameter's tensor),
so nothing changes and the diagnostic quotes the error.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def scaled(model, x, i):
    return model(x) * tf.constant(i + 1, tf.float32)


def run(x):
    return [scaled(model, x, step) for step in range(3)]
