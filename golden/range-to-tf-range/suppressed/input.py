import tensorflow as tf


@tf.function
def keep_unrolled(x, n):
    acc = tf.zeros_like(x)
    for i in range(n):  # retrace-fix: ignore[RTF001]
        acc = acc + x
    return acc


@tf.function  # retrace-fix: ignore
def also_kept(x):
    acc = tf.zeros([])
    for i in range(tf.shape(x)[0]):
        acc += x[i]
    return acc


def main(x):
    return [keep_unrolled(x, 2), keep_unrolled(x, 3)]
