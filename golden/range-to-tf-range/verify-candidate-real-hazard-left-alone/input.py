import tensorflow as tf


@tf.function
def verbose(x, n):
    x = tf.identity(x)
    for i in range(n):
        print("tracing step", i)
        x = x + 1.0
    return x


def main(x):
    return [verbose(x, 2), verbose(x, 3)]
