import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


for n in [1, 2, 3]:
    step(tf.ones([2]), n)  # TODO: the code RTF010 must report (and what it rewrites it to)
