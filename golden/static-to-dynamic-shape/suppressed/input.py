import tensorflow as tf


@tf.function
def flatten(x):
    return tf.reshape(x, [x.shape[0], -1])  # retrace-fix: ignore[RTF008]


@tf.function  # retrace-fix: ignore
def flatten_all(x):
    return tf.reshape(x, [x.shape[0], -1])
