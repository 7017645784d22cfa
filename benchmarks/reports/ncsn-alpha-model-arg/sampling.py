"""Annealed Langevin step taking the score model and a Python float step size (rebuilt from Xemnas0/NCSN-TF2.0#26)."""

import tensorflow as tf


@tf.function
def sample_one_step(model, x, noise, alpha_i):
    score = model(x)
    return x + alpha_i / 2 * score + tf.sqrt(alpha_i) * noise
