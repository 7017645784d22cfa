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


@tf.function(reduce_retracing=True)
def collect(data):
    # `data` is a tuple: its length never changes, and len() of a tensor is a tensor that works in TF ops
    if len(data) == 2:
        x, y = data
    else:
        x, y, _ = data
    return x + y


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def long_enough(wav):
    return len(wav) >= 16000
