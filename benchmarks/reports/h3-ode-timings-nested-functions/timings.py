"""Benchmark helper that defines its tf.functions inside the function it calls once per problem (rebuilt from google-research/google-research#1485)."""

import tensorflow as tf


def get_ode_timings(matrix, y0, repeats=3):
    @tf.function
    def tf_ydot(y):
        return tf.linalg.matvec(matrix, y) - 0.1 * y * y

    @tf.function
    def tf_loss(y):
        y_next = y + 0.05 * tf_ydot(y)
        return tf.reduce_sum(tf.square(y_next))

    return [float(tf_loss(y0 + 0.01 * r)) for r in range(repeats)]
