"""A Python int pooling window: `tf.nn.max_pool2d` iterates over `ksize`, which a tensor of any
dtype refuses ("Iterating over a symbolic `tf.Tensor` is not allowed").  The body scan sees a
TensorFlow argument; the proof fails for every dtype, so the signature is refused with the error."""
import tensorflow as tf


@tf.function
def pooled(x, window):
    return tf.nn.max_pool2d(x, ksize=window, strides=1, padding="VALID")
