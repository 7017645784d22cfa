"""Seed 004, Test 3: a Python step count passed with three values traces three graphs."""
import tensorflow as tf


@tf.function
def train_with_python_args(x, y, num_steps):
    total = tf.zeros([])
    for i in tf.range(num_steps):
        # one training step
        total += tf.reduce_mean(x * y) * 0.1
    return total


def main(x, y):
    results = [
        train_with_python_args(x, y, tf.constant(10)),
        train_with_python_args(x, y, tf.constant(20)),
        train_with_python_args(x, y, tf.constant(30)),
    ]
    return results
