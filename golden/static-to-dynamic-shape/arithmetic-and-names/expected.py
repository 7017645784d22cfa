import tensorflow as tf


@tf.function
def expand(x):
    batch = tf.shape(x)[0]
    doubled = tf.zeros([batch * 2, x.shape[1]])
    rows = tf.range(tf.shape(x)[0] - 1)
    filled = tf.fill([tf.shape(x)[0] // 2 + 1], 0.5)
    total = tf.zeros([])
    for i in range(tf.shape(x)[0]):
        total += tf.reduce_sum(x[i])
    tiled = tf.tile(x, [1, 2])
    flat = tf.reshape(tiled, (-1, x.shape[1] * 2))
    return doubled, rows, filled, total, flat
