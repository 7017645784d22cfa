import tensorflow as tf


@tf.function
def fixed_shape(x):
    return tf.reduce_sum(x)


@tf.function
def same_int(x, n):
    for _ in range(n):
        x = x + 1.0
    return x
