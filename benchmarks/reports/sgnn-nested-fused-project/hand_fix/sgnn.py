"""Projection whose inner tf.function is defined per call and closes over the outer arguments (rebuilt from tensorflow/models#10936)."""

import tensorflow as tf


@tf.function
def _project(x, num_hash, hash_scale):
    projected = tf.math.floormod(tf.cast(x * hash_scale, tf.int32), num_hash)
    return tf.one_hot(projected, num_hash)


def fused_project(features, num_hash, hash_scale):
    return _project(features, num_hash, hash_scale)
