import tensorflow as tf


@tf.function
def scaled_sum(x, *, scale):
    # keyword-only without a default: no input_signature is possible
    return tf.reduce_sum(x) * scale
