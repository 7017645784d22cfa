"""A dtype drift where the body computes with the value: casting changes the results' precision.

`tf.reduce_sum` of a float64 array gives float64; cast to float32 at the call site it
gives float32 (other digits, another result dtype): unsafe.
"""

import numpy as np
import tensorflow as tf


@tf.function
def total(values):
    return tf.reduce_sum(values)


def run(rng):
    return [total(rng.normal(size=(4,))), total(tf.constant([1.0, 2.0, 3.0, 4.0]))]
