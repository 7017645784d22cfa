"""Seed 004, test 3: a Python int step count drives a loop inside a tf.function."""

import tensorflow as tf


@tf.function
def train_with_python_args(X, y, num_steps):
    loss = tf.constant(0.0)
    for i in range(num_steps):
        pred = tf.reduce_sum(X, axis=1)
        loss = loss + tf.reduce_mean(tf.square(pred - y))
    return loss
