"""Reshape every feature of a batch with a tf.function defined inside the helper (rebuilt from JayYip/m3tl#115, fixed in #116)."""

import tensorflow as tf


def reshape_tensors_in_dataset(example):
    @tf.function
    def _reshape_tensor(tensor):
        shape = tf.shape(tensor)
        return tf.reshape(tensor, tf.concat([[shape[0] * shape[1]], shape[2:]], axis=0))

    return {name: _reshape_tensor(value) for name, value in example.items()}
