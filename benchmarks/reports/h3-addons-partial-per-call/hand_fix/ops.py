"""Image op that wraps a bound-argument callable in tf.function at every call (rebuilt from tensorflow/addons#1830)."""

import tensorflow as tf


@tf.function
def equalize_image(image, data_format="channels_last"):
    axis = [0, 1] if data_format == "channels_last" else [1, 2]
    low = tf.reduce_min(image, axis=axis, keepdims=True)
    high = tf.reduce_max(image, axis=axis, keepdims=True)
    return (image - low) / (high - low + 1e-6)


def equalize(image, data_format="channels_last"):
    return equalize_image(image, data_format=data_format)
