"""The body reads the value into a static shape: as a tensor it fails to trace.

`tf.ensure_shape(x, [rows, 3])` needs a Python int (TypeError: Dimension value must be
integer or None ...).  The static check cannot tell; the proof on the live function can,
and the finding quotes it.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(3)])


@tf.function
def checked(model, x, rows):
    return model(tf.ensure_shape(x, [rows, 3]))


def run():
    return [checked(model, tf.ones([rows, 3]), rows) for rows in (1, 2, 3)]
