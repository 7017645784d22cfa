"""Every parameter can be described by a signature: RTF003 writes one, RTF005 stays quiet."""

import tensorflow as tf


@tf.function
def scaled(x, factor):
    return x * factor


def run(x):
    return [scaled(x, factor) for factor in (0.5, 1.5, 2.5)]
