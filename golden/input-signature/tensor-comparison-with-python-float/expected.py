import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[2], dtype=tf.int32),
    tf.TensorSpec(shape=[2], dtype=tf.int32),
    tf.TensorSpec(shape=[2], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.float32),
])
def policy(greedy, random_action, coin, epsilon):
    # `coin < epsilon` compares two tensors once epsilon is one: tf.where gets a bool tensor
    return tf.where(coin < epsilon, random_action, greedy)


@tf.function
def gated(x, coin, threshold):
    # a Python `if` on the comparison: with a tensor threshold it becomes a tf.cond
    if coin > threshold:
        return x * 2.0
    return x
