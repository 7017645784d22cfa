import tensorflow as tf


@tf.function
def forms(x, n):
    plain = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        plain = plain.write(i, x * tf.cast(i, tf.float32))
    keyword_axis = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        keyword_axis = keyword_axis.write(i, tf.reduce_sum(tf.cast(x, tf.float32), axis=0))
    negative_axis = tf.TensorArray(tf.float64, size=n)
    for i in tf.range(n):
        negative_axis = negative_axis.write(i, tf.ones([2], dtype=tf.float64))
    pieces = tf.TensorArray(tf.int64, size=n)
    for i in tf.range(n):
        pieces = pieces.write(i, tf.zeros([i + 1], tf.int64))
    return (
        plain.stack(),
        keyword_axis.stack(name="summed"),
        tf.experimental.numpy.moveaxis(negative_axis.stack(), 0, -1),
        pieces.concat(),
    )


def run():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    return [forms(x, n) for n in (2, 3, 4)]
