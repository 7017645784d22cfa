import tensorflow as tf

NUM_BLOCKS = 4
blocks = [tf.keras.layers.Dense(4) for _ in range(NUM_BLOCKS)]


@tf.function
def unrolled(x):
    for i in range(3):
        x = x * 2.0
    for i in range(NUM_BLOCKS):
        x = blocks[i](x)
    for i in range(len(blocks)):
        x = x + 1.0
    for i in range(x.shape[0]):
        x = x - 1.0
    return x


def eager_loop(x, n):
    for i in range(n):
        x = x + 1
    return x


@tf.function
def called_once(x, n):
    for i in range(n):
        x = x + 1.0
    return x


called_once(tf.zeros([2]), 5)
