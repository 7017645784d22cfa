"""Expected-improvement acquisition rebuilt, and traced, at every optimisation step (rebuilt from secondmind-labs/trieste#178)."""

import math

import tensorflow as tf

SIGMA = 0.3


def surrogate_mean(x):
    return tf.reduce_sum(tf.square(x - 0.3), axis=-1) + 0.1 * tf.reduce_sum(tf.sin(5.0 * x), axis=-1)


def expected_improvement(best):
    @tf.function
    def acquisition(x):
        mean = surrogate_mean(x)
        z = (best - mean) / SIGMA
        cdf = 0.5 * (1.0 + tf.math.erf(z / math.sqrt(2.0)))
        pdf = tf.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        return (best - mean) * cdf + SIGMA * pdf

    return acquisition
