import tensorflow as tf


@tf.function
def forms(x, n):
    plain = []
    for i in range(n):
        plain.append(x * tf.cast(i, tf.float32))
    keyword_axis = []
    for i in range(n):
        keyword_axis.append(tf.reduce_sum(tf.cast(x, tf.float32), axis=0))
    negative_axis = []
    for i in range(n):
        negative_axis.append(tf.ones([2], dtype=tf.float64))
    pieces = []
    for i in range(n):
        pieces.append(tf.zeros([i + 1], tf.int64))
    return (
        tf.stack(plain),
        tf.stack(keyword_axis, axis=0, name="summed"),
        tf.stack(negative_axis, axis=-1),
        tf.concat(pieces, axis=0),
    )


def run():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [forms(x, n) for n in (2, 3, 4)]
