import tensorflow as tf


def range(n):  # a project-local range
    return [0] * n


@tf.function
def local_range(x, n):
    acc = tf.zeros_like(x)
    for i in range(n):
        acc = acc + x
    return acc


def main(x):
    return [local_range(x, 1), local_range(x, 2)]
