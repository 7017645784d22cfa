"""Pad token ids to a target length built with tf.constant (rebuilt from tensorflow/tensorflow#46286)."""

import tensorflow as tf


@tf.function
def pad_to_length(ids, length):
    target = tf.constant(length, dtype=tf.int32)
    pad = target - tf.shape(ids)[0]
    return tf.pad(ids, [[0, pad]])
