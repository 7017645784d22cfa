import tensorflow as tf


@tf.function
def flatten(x):
    return tf.reshape(x, [x.shape[0], -1])


@tf.function
def pad_rows(x, width):
    # dim 1 of `x` never varies: x.shape[1] stays static
    return tf.concat([x, tf.zeros([x.shape[0], width - x.shape[1]])], axis=1)
