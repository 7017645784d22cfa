import tensorflow as tf


@tf.function
def expand(x):
    batch = x.shape[0]
    doubled = tf.zeros([batch * 2, x.shape[1]])
    rows = tf.range(x.shape[0] - 1)
    filled = tf.fill([x.shape[0] // 2 + 1], 0.5)
    total = tf.zeros([])
    for i in range(x.shape[0]):
        total += tf.reduce_sum(x[i])
    tiled = tf.tile(x, [1, 2])
    flat = tf.reshape(tiled, (-1, x.shape[1] * 2))
    return doubled, rows, filled, total, flat
