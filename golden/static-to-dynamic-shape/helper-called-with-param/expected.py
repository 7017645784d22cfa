import tensorflow as tf

conv = tf.keras.layers.Conv2D(1, 1)


def hw_flatten(x):
    return tf.reshape(x, shape=[tf.shape(x)[0], -1, x.shape[-1]])


def unrelated(images):
    # not called from a recorded tf.function with a varying tensor
    return tf.reshape(images, [images.shape[0], -1])


@tf.function
def global_context(x):
    attention = tf.nn.softmax(hw_flatten(conv(x)), axis=1)  # B, HW, 1
    context = tf.matmul(hw_flatten(x), attention, transpose_a=True)  # B, C, 1
    return x + tf.reshape(context, [tf.shape(x)[0], 1, 1, x.shape[-1]])
