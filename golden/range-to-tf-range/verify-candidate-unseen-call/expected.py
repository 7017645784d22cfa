import tensorflow as tf

from layers import residual_block


@tf.function
def run_blocks(x, n):
    for i in tf.range(n):
        x = residual_block(x)
    return x


def main(x):
    return [run_blocks(x, tf.constant(2)), run_blocks(x, tf.constant(3)), run_blocks(x, tf.constant(4))]
