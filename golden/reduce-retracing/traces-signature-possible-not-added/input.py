import tensorflow as tf


@tf.function
def simple_computation(input_tensor):
    return tf.reduce_sum(input_tensor)
