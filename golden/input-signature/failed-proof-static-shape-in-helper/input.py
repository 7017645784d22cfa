"""A helper outside the function reads a dimension statically: the body scan cannot see it, the
proof can (with `None` rows `tf.reshape` fails), so the signature is refused with the error."""
import tensorflow as tf


def flatten(x):
    return tf.reshape(x, [x.shape[0], -1])


@tf.function
def embed(x):
    return tf.reduce_sum(flatten(x), axis=1)
