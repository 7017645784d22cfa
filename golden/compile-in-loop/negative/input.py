import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


for _ in range(3):
    step(tf.ones([2]), tf.constant(3))  # TODO: code RTF010 must leave alone
