"""A Python int exponent (tensorflow/tensorflow#7170): as an int32 tensor `tf.math.pow` fails
("Input 'y' of 'Pow' Op has type int32 that does not match type float32"); float32 traces."""
import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[3], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.float32),
])
def power(x, k):
    return tf.math.pow(x, k)
