import functools

import numpy as np
import tensorflow as tf


def weighted(x, weights, **options):
    return x * tf.reduce_sum(weights) * options.get("gain", 1.0)


def run(x):
    weights = np.array([0.5, 0.25], dtype=np.float32)
    return tf.function(lambda v: weighted(v, weights))(x)


def run_gain(x, gain):
    step = tf.function(functools.partial(weighted, weights=[1.0, 2.0], gain=gain))
    return step(x)


def main(xs):
    return [run(x) + run_gain(x, 0.5) for x in xs]


GAIN = 1.0


def gained(x, bias):
    return x * GAIN + bias


def set_gain(value):
    global GAIN
    GAIN = value


def run_gained(x):
    return tf.function(lambda v: gained(v, 0.5))(x)


def main_gained(xs):
    return [run_gained(x) for x in xs]
