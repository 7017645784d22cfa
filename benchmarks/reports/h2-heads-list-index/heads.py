"""Per-task output heads picked from a Python list with a Python int task index (rebuilt from tensorflow/tensorflow#58965)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
heads = [tf.keras.layers.Dense(2, name=f"head_{i}") for i in range(3)]
for head in heads:
    head.build((None, 4))


@tf.function
def compute_single_output(heads, index, inputs):
    return heads[index](inputs)
