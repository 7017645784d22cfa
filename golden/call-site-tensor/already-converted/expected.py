"""The call site already passes a tensor: a second run with the traces recorded before the fix.

The traces are float-next-to-model's (Python floats at the call on line 21); the call
now passes tf.constant(alpha, dtype=tf.float32), so there is nothing left to do.
"""

import tensorflow as tf

score_model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])


@tf.function
def langevin_step(model, x, noise, alpha):
    score = model(x)
    return x + alpha / 2 * score + tf.sqrt(alpha) * noise


def sample(x, noises, alphas):
    for alpha in alphas:
        for noise in noises:
            x = langevin_step(score_model, x, noise, tf.constant(alpha, dtype=tf.float32))
    return x
