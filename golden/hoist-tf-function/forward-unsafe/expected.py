import functools

import numpy as np
import tensorflow as tf


def weighted(x, weights, **options):
    return x * tf.reduce_sum(weights) * options.get("gain", 1.0)


_tf_weighted = tf.function(weighted)


def run(x):
    weights = np.array([0.5, 0.25], dtype=np.float32)
    return _tf_weighted(x, weights)


def run_gain(x, gain):
    return _tf_weighted(x, weights=[1.0, 2.0], gain=gain)


def main(xs):
    return [run(x) + run_gain(x, 0.5) for x in xs]


GAIN = 1.0


def gained(x, bias):
    return x * GAIN + bias


def set_gain(value):
    global GAIN
    GAIN = value


_tf_gained = tf.function(gained)


def run_gained(x):
    return _tf_gained(x, 0.5)


def main_gained(xs):
    return [run_gained(x) for x in xs]
