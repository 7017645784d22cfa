import functools

import tensorflow as tf


def equalize_image(image, data_format="channels_last"):
    axis = [0, 1] if data_format == "channels_last" else [1, 2]
    low = tf.reduce_min(image, axis=axis, keepdims=True)
    high = tf.reduce_max(image, axis=axis, keepdims=True)
    return (image - low) / (high - low + 1e-6)


def equalize(image, data_format="channels_last"):
    fn = tf.function(lambda img: equalize_image(img, data_format=data_format))
    return fn(image)


def equalize_partial(image, data_format="channels_last"):
    fn = tf.function(functools.partial(equalize_image, data_format=data_format))
    return fn(image)
