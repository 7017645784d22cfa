"""The body converts its own parameter: `tf.constant(i)` of a Python step counter.

Every step is a new trace.  A tensor `i` alone fails (`tf.constant` refuses a symbolic
tensor); the hand fix is two edits: the call site passes `tf.constant(step)` and the
body converts with `tf.convert_to_tensor(i)` / `tf.cast(i, tf.float32)`, which take a
tensor or a Python value alike.  The proof traced the body with those conversions.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def scaled(model, x, i):
    offset = tf.constant(i) + tf.constant(i)
    decay = 1.0 / (1.0 + tf.constant(i, tf.float32))
    return model(x) * decay + tf.cast(offset, tf.float32)


def run(x):
    return [scaled(model, x, step) for step in range(4)]
