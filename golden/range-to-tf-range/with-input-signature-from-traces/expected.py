import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[3], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.int32),
])
def repeat_add(x, n):
    acc = tf.zeros_like(x)
    for _ in tf.range(n):
        acc = acc + x
    return acc
