"""Global-context block that flattens with the static batch size (rebuilt from taki0112/GCNet-Tensorflow#1)."""

import tensorflow as tf

conv = tf.keras.layers.Conv2D(1, 1)


def hw_flatten(x):
    return tf.reshape(x, shape=[tf.shape(x)[0], -1, x.shape[-1]])


@tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 4], tf.float32)])
def global_context(x):
    attention = tf.nn.softmax(hw_flatten(conv(x)), axis=1)  # B, HW, 1
    context = tf.matmul(hw_flatten(x), attention, transpose_a=True)  # B, C, 1
    return x + tf.reshape(context, [tf.shape(x)[0], 1, 1, x.shape[-1]])
