import functools

import tensorflow as tf


def equalize_image(image, data_format="channels_last"):
    axis = [0, 1] if data_format == "channels_last" else [1, 2]
    low = tf.reduce_min(image, axis=axis, keepdims=True)
    high = tf.reduce_max(image, axis=axis, keepdims=True)
    return (image - low) / (high - low + 1e-6)


_tf_equalize_image = tf.function(equalize_image)


def equalize(image, data_format="channels_last"):
    return _tf_equalize_image(image, data_format=data_format)


def equalize_partial(image, data_format="channels_last"):
    return _tf_equalize_image(image, data_format=data_format)
