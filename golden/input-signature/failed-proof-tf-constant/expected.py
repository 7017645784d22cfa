"""A Python int passed to `tf.constant(k)`, which refuses a tensor ("Expected any non-tensor
type"): the proof fails for every dtype, so the signature is refused with the error."""
import tensorflow as tf


@tf.function
def shifted(x, k):
    return x + tf.constant(k)
