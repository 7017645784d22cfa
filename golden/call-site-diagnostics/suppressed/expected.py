import tensorflow as tf


class Box:
    def __init__(self, v):
        self.v = v


@tf.function  # retrace-fix: ignore[RTF104]
def unbox(b):
    return b.v


@tf.function
def mixed(x):
    return x * 2


def run(values):
    for v in values:
        unbox(Box(v))
        mixed(tf.constant(v, dtype=tf.int32))
        mixed(tf.constant(v, dtype=tf.float32))  # retrace-fix: ignore[RTF105]
        @tf.function  # retrace-fix: ignore[RTF101]
        def inner(x):
            return x
