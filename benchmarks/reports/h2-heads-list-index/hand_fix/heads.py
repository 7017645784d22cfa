"""Per-task output heads picked from a Python list with a Python int task index (rebuilt from tensorflow/tensorflow#58965).

Hand fix (the answer to the linked question): select the head with tf.switch_case on a tensor index, one branch per head."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
heads = [tf.keras.layers.Dense(2, name=f"head_{i}") for i in range(3)]
for head in heads:
    head.build((None, 4))


@tf.function
def _compute(heads, index, inputs):
    return tf.switch_case(index, [lambda head=head: head(inputs) for head in heads])


def compute_single_output(heads, index, inputs):
    return _compute(heads, tf.constant(index, tf.int32), inputs)
