"""A tf.function that already has a general input_signature (rebuilt from tensorflow/tensorflow#48229)."""

import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=(None,), dtype=tf.int32)])
def unique_values(arr):
    values, _ = tf.unique(arr)
    return tf.sort(values)
