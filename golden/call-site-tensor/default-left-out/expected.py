"""A sampling temperature with a default: some calls leave it out, others pass one.

The generator model rules out an input_signature.  Converting only the calls that pass
a value would leave the default (a Python float) tracing on its own, so the calls that
leave it out get it passed explicitly.
"""

import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3)])


@tf.function
def sample_logits(model, z, temperature=1.0):
    return model(z) / temperature


def sample_all(z):
    out = [sample_logits(generator, z, temperature=tf.constant(1.0, dtype=tf.float32))]
    for temperature in (0.5, 2.0):
        out.append(sample_logits(generator, z, temperature=tf.constant(temperature, dtype=tf.float32)))
    return out
