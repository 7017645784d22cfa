"""A trace file recorded before proofs existed (format version 1): reduce_retracing is not proven
on the live function, so it is offered in the unsafe tier only."""
import tensorflow as tf


@tf.function
def train_step(x, model):
    return tf.reduce_sum(model(x))
