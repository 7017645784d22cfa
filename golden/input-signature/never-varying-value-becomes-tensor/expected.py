"""`rate` is 0.25 in every call and has no default to pin: as a float32 tensor it traces, so
the signature covers the varying batch and the constant rate."""
import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[None, 3], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.float32),
])
def scaled(x, rate):
    return x * (1.0 - rate)
