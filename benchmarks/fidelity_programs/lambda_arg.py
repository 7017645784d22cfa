"""Lambdas and temporary objects as tf.function arguments (each a new object per call)."""
import json

import tensorflow as tf


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


@tf.function
def apply(fn, x):
    return fn(x)


def main():
    out = []
    for i in range(6):
        out.append(float(tf.reduce_sum(apply(lambda t: t + 1.0, tf.ones([3])))))
        out.append(float(tf.reduce_sum(apply(Scale(2.0), tf.ones([3])))))
    print(json.dumps({"out": out, "traces": apply.experimental_get_tracing_count()}))


main()
