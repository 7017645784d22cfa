import tensorflow as tf


@tf.function
def cumulative_rows(x):
    acc = tf.zeros_like(x[0])
    for i in tf.range(tf.shape(x)[0]):  # rows of x
        acc = acc + x[i] * 2.0
    return acc


@tf.function
def weighted(x):
    n = tf.size(x)
    out = tf.zeros([], dtype=x.dtype)
    for k in tf.range(1, n):
        out += tf.gather(x, k) * tf.cast(k, x.dtype)
    return out


@tf.function
def outer(x):
    def inner(values):
        total = tf.zeros([])
        for j in tf.range(tf.shape(values)[0]):
            total += values[j]
        return total

    return inner(x)
