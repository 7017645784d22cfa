"""No proof in the trace file (format version 1): the static check is the second line of defence,
and it refuses to turn `k` into a tensor wherever the body needs a Python value."""
import numpy as np
import tensorflow as tf

LAYERS = [tf.identity, tf.nn.relu, tf.nn.sigmoid]


@tf.function
def as_constant(x, k):
    return x + tf.constant(k)


@tf.function
def as_int(x, k):
    return x * int(k)


@tf.function
def with_numpy(x, k):
    return x + np.ones(3)[:k].sum()


@tf.function
def as_index(x, k):
    return LAYERS[k](x)


@tf.function
def as_text(x, k):
    tf.print(f"step {k}")
    return x


@tf.function
def as_operand(x, k):
    # TensorFlow converts a Python number here anyway: not refused, but unsafe until proven
    return tf.math.pow(x, k)
