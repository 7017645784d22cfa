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


def equalize(image, data_format="channels_last"):
    fn = tf.function(lambda img: equalize_image(img, data_format=data_format))  # a new tf.function per call
    return fn(image)


def equalize_partial(image, data_format="channels_last"):
    return tf.function(functools.partial(equalize_image, data_format=data_format))(image)


def shift_twice(x):
    step = tf.function(partial(shifted, shift=SHIFT, scale=2.0), jit_compile=False)
    return step(x) + step(x * 2.0)


def shift_swapped(x):
    # the lambda's parameters in another order than its call of `shifted`
    return tf.function(lambda s, v: shifted(v, s), reduce_retracing=True)(SHIFT, x)


def main(images):
    out = []
    for image in images:
        out.append(equalize(image))
        out.append(equalize_partial(image, "channels_first"))
        out.append(shift_twice(image))
        out.append(shift_swapped(image))
    return out
