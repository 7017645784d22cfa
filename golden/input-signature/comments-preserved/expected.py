import tensorflow as tf


# Scales a batch; called with every batch size the loader produces.
@tf.function(input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)])  # compiled once per shape today
def scale(x):  # x: [batch, 4]
    # multiply, then shift
    return x * 2.0 + 1.0


@tf.function(
    jit_compile=False,  # XLA off until the ops are supported
    input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)],
)
def shift(x):
    return x - 1.0  # keep this comment
