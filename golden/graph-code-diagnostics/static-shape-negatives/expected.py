import tensorflow as tf


@tf.function
def plain(x):
    return tf.reshape(x, [x.shape[0], -1])


@tf.function(input_signature=[tf.TensorSpec(shape=[16, 50], dtype=tf.float32)])
def fixed(x):
    return tf.reshape(x, [x.shape[0], x.shape[1]])


@tf.function(reduce_retracing=True)
def dynamic(x):
    return tf.reshape(x, [tf.shape(x)[0], -1]) * x.shape[-1]
