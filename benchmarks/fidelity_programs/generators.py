"""Generators and temporary objects: a generator passed in (by identity) and batches from a generator."""
import json

import tensorflow as tf


def batches(sizes):
    for n in sizes:
        yield tf.ones([n, 2])


@tf.function
def consume(gen_source, x):
    return tf.reduce_sum(x)


@tf.function
def step(x):
    return tf.reduce_mean(x)


def main():
    out = []
    for epoch in range(3):
        gen = batches([2, 3, 2])
        for x in gen:
            out.append(float(step(x)))
            out.append(float(consume(gen, x)))
        del gen
    print(json.dumps({"out": out, "step": step.experimental_get_tracing_count(),
                      "consume": consume.experimental_get_tracing_count()}))


main()
