import tensorflow as tf


@tf.function
def weighted_loss(x, weights, bounds):
    w = tf.convert_to_tensor(weights)
    clipped = tf.clip_by_value(x, bounds[0], bounds[1])
    return tf.reduce_sum(clipped * w)
