import tensorflow as tf


@tf.function
def train_with_python_args(X, y, num_steps):
    for i in tf.range(num_steps):
        # training step
        pass


def main(X, y):
    train_with_python_args(X, y, tf.constant(10))  # Trace #1
    train_with_python_args(X, y, tf.constant(20))  # Trace #2
    train_with_python_args(X, y, tf.constant(30))  # Trace #3
