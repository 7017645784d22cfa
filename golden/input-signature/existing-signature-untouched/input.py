import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None, None], dtype=tf.float32)])
def flexible_computation(input_tensor):
    return tf.reduce_sum(input_tensor)


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)], reduce_retracing=True)
def both(x):
    return x * 2.0
