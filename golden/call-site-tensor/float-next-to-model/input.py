"""An annealed Langevin step that takes the score model and a Python float step size.

Rebuilt from the pattern of Xemnas0/NCSN-TF2.0#26: the model argument rules out an
input_signature; one trace per step size.
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
            x = langevin_step(score_model, x, noise, alpha)
    return x
