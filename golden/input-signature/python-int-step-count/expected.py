"""Seed 004, Test 3: a Python int step count retraces once per value."""
import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[8, 4], dtype=tf.float32),
    tf.TensorSpec(shape=[8, 4], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.int32),
])
def train_with_python_args(X, y, num_steps):
    loss = tf.constant(0.0)
    for i in range(num_steps):
        loss = loss + tf.reduce_mean(tf.square(X - y))
    return loss
