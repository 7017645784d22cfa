"""Seed 002, Example 2: the dtype of `x` changes between calls."""
import tensorflow as tf


@tf.function
def mixed_type_op(x, y):
    return tf.cast(x, tf.float32) + y
