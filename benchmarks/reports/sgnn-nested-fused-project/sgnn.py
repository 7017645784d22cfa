"""Projection whose inner tf.function is defined per call and closes over the outer arguments (rebuilt from tensorflow/models#10936)."""

import tensorflow as tf


def fused_project(features, num_hash, hash_scale):
    @tf.function
    def func(x):
        projected = tf.math.floormod(tf.cast(x * hash_scale, tf.int32), num_hash)
        return tf.one_hot(projected, num_hash)

    return func(features)
