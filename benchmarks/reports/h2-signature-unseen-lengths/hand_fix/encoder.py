"""Sequence encoder whose tf.function already has a length-agnostic input_signature (rebuilt from tensorflow/tensorflow#29075)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
cell = tf.keras.layers.Dense(16, activation="tanh")
cell.build((None, 16))


@tf.function(input_signature=[tf.TensorSpec([None, None, 16], tf.float32)])
def encode(inputs):
    hidden = cell(inputs)
    mask = tf.cast(tf.reduce_any(inputs != 0.0, axis=-1, keepdims=True), tf.float32)
    return tf.reduce_sum(hidden * mask, axis=1) / tf.maximum(tf.reduce_sum(mask, axis=1), 1.0)
