"""The varying value is used as a Python value in the body: it must stay one.

`round(digits)` and the f-string need a Python int; RTF003's diagnostic says so, RTF005
has nothing to convert.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])


@tf.function
def report(model, x, digits):
    tf.print(f"rounded to {digits} digits")
    return tf.round(model(x) * 10 ** digits)


def run(x):
    return [report(model, x, digits) for digits in (1, 2, 3)]
