"""A call of the function that the recording never reached (`evaluate` did not run).

After the fix it would still pass a Python float and trace on its own, next to the
converted calls: the fix is unsafe, and the finding names the call.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2)])


@tf.function
def noisy(model, x, sigma):
    return model(x) + sigma * tf.ones_like(x)


def train(x):
    return [noisy(model, x, sigma) for sigma in (0.3, 0.2, 0.1)]


def evaluate(x):
    return noisy(model, x, 0.0)
