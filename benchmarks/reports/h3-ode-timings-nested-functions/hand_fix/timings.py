"""Benchmark helper that defines its tf.functions inside the function it calls once per problem (rebuilt from google-research/google-research#1485)."""

import tensorflow as tf


@tf.function
def tf_ydot(matrix, y):
    return tf.linalg.matvec(matrix, y) - 0.1 * y * y


@tf.function
def tf_loss(matrix, y):
    y_next = y + 0.05 * tf_ydot(matrix, y)
    return tf.reduce_sum(tf.square(y_next))


def get_ode_timings(matrix, y0, repeats=3):
    return [float(tf_loss(matrix, y0 + 0.01 * r)) for r in range(repeats)]
