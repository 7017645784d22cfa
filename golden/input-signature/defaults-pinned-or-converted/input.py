import tensorflow as tf


@tf.function
def scaled(x, scale=2.0, training=False):
    if training:
        x = tf.nn.dropout(x, 0.1)
    return x * scale


@tf.function
def shifted(x, offset=1.0):
    # every caller passes offset=3.0: it cannot stay a pinned default
    return x + offset
