import tensorflow as tf


@tf.function
def named_steps(x, n):
    x = tf.identity(x)
    for i in range(n):
        x = tf.identity(x + 1.0, name=f"step_{i}")
    return x


def main(x):
    return [named_steps(x, 2), named_steps(x, 3)]
