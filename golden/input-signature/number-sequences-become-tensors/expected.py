import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[3], dtype=tf.float32),
    tf.TensorSpec(shape=[3], dtype=tf.float32),
    tf.TensorSpec(shape=[2], dtype=tf.float32),
])
def weighted_loss(x, weights, bounds):
    w = tf.convert_to_tensor(weights)
    clipped = tf.clip_by_value(x, bounds[0], bounds[1])
    return tf.reduce_sum(clipped * w)
