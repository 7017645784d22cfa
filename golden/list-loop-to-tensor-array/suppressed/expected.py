import tensorflow as tf


@tf.function
def sums(x, n):
    totals = []
    for i in range(n):  # retrace-fix: ignore[RTF007]
        totals.append(tf.reduce_sum(x))
    return tf.stack(totals)


@tf.function  # retrace-fix: ignore
def sums_all(x, n):
    totals = []
    for i in range(n):
        totals.append(tf.reduce_sum(x))
    return tf.stack(totals)


def main():
    for n in (2, 3, 4):
        sums(tf.constant([1.0, 2.0]), n)
        sums_all(tf.constant([1.0, 2.0]), n)
