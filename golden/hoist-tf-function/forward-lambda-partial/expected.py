import functools
from functools import partial

import tensorflow as tf

SHIFT = 0.5


def equalize_image(image, data_format="channels_last"):
    axis = [0, 1] if data_format == "channels_last" else [1, 2]
    low = tf.reduce_min(image, axis=axis, keepdims=True)
    high = tf.reduce_max(image, axis=axis, keepdims=True)
    return (image - low) / (high - low + 1e-6)


def shifted(x, shift, scale=1.0):
    return (x + shift) * scale


_shifted_fn = tf.function(shifted, reduce_retracing=True)


_tf_equalize_image = tf.function(equalize_image)


def equalize(image, data_format="channels_last"):
    return _tf_equalize_image(image, data_format=data_format)


def equalize_partial(image, data_format="channels_last"):
    return _tf_equalize_image(image, data_format=data_format)


_tf_shifted = tf.function(shifted, jit_compile=False)


def shift_twice(x):
    return _tf_shifted(x, shift=SHIFT, scale=2.0) + _tf_shifted(x * 2.0, shift=SHIFT, scale=2.0)


def shift_swapped(x):
    # the lambda's parameters in another order than its call of `shifted`
    return _shifted_fn(x, SHIFT)


def main(images):
    out = []
    for image in images:
        out.append(equalize(image))
        out.append(equalize_partial(image, "channels_first"))
        out.append(shift_twice(image))
        out.append(shift_swapped(image))
    return out
