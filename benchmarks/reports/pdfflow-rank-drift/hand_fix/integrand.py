"""Integrand evaluated on inputs of different rank (rebuilt from N3PDF/pdfflow#34)."""

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=None, dtype=tf.float64)])
def integrand(xarr):
    # works for a single point (rank 1) or a batch of points (rank 2)
    return tf.reduce_sum(tf.exp(-tf.square(xarr)), axis=-1)
