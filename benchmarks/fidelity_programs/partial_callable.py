"""tf.functions of a functools.partial (built per call, tensorflow/addons#1830) and of a callable object."""
import functools
import json

import tensorflow as tf


def reduce(x, scale, axis=0):
    return tf.reduce_sum(x, axis=axis) * scale


class Shift:
    def __init__(self, by):
        self.by = by

    def __call__(self, x, n):
        return x + self.by * n


def per_call(x, axis):
    return tf.function(functools.partial(reduce, axis=axis))(x, 2.0)


def main():
    x = tf.ones([2, 3])
    out = [float(tf.reduce_sum(per_call(x, axis))) for axis in (1, 1, 0, 1, 0, 1)]
    shift = tf.function(Shift(1.0))
    out += [float(tf.reduce_sum(shift(x, n))) for n in (1, 2, 2, 3)]
    print(json.dumps({"out": out, "traces": shift.experimental_get_tracing_count()}))


main()
