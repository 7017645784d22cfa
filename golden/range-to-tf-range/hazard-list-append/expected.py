import tensorflow as tf


@tf.function
def collect(x, n):
    out = []
    for i in range(n):
        out.append(x * 2.0)
    return tf.stack(out)


def main(x):
    return [collect(x, 2), collect(x, 3)]
