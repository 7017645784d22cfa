"""A trace file recorded before proofs existed (format version 1): the signature is not proven
on the live function, so it is offered in the unsafe tier only."""
import tensorflow as tf


@tf.function
def predict(x):
    return tf.reduce_sum(x, axis=1)
