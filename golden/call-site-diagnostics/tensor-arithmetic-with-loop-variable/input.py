import tensorflow as tf


@tf.function
def step(batch):
    return tf.reduce_sum(batch)


def train(unknown_offset):
    for epoch in range(8):
        step(tf.ones([4]) * epoch)  # a tensor times a Python int is a tensor: one trace
        step(unknown_offset + epoch)  # an operand of unknown type: not known to be a Python value
        step(epoch * 2)  # a Python int: every value traces again
