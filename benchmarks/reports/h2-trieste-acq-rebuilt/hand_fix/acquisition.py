"""Expected-improvement acquisition rebuilt, and traced, at every optimisation step (rebuilt from secondmind-labs/trieste#178).

Hand fix (the pattern of secondmind-labs/trieste#340): the acquisition is built once and keeps the incumbent
in a tf.Variable that each step updates in place, so its tf.function traces once."""

import math

import tensorflow as tf

SIGMA = 0.3


def surrogate_mean(x):
    return tf.reduce_sum(tf.square(x - 0.3), axis=-1) + 0.1 * tf.reduce_sum(tf.sin(5.0 * x), axis=-1)


class ExpectedImprovement:
    def __init__(self, best):
        self._best = tf.Variable(best, dtype=tf.float32, trainable=False)

    def update(self, best):
        self._best.assign(best)

    @tf.function
    def __call__(self, x):
        best = self._best
        mean = surrogate_mean(x)
        z = (best - mean) / SIGMA
        cdf = 0.5 * (1.0 + tf.math.erf(z / math.sqrt(2.0)))
        pdf = tf.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
        return (best - mean) * cdf + SIGMA * pdf


_acquisition = None


def expected_improvement(best):
    global _acquisition
    if _acquisition is None:
        _acquisition = ExpectedImprovement(best)
    else:
        _acquisition.update(best)
    return _acquisition
