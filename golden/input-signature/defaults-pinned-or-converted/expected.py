import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def scaled(x, scale=2.0, training=False):
    if training:
        x = tf.nn.dropout(x, 0.1)
    return x * scale


@tf.function(input_signature=[
    tf.TensorSpec(shape=[None], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.float32),
])
def shifted(x, offset=1.0):
    # every caller passes offset=3.0: it cannot stay a pinned default
    return x + offset
