import tensorflow as tf


@tf.function
def train_with_python_args(X, y, num_steps):
    for i in range(num_steps):
        # training step
        pass


def main(X, y):
    train_with_python_args(X, y, 10)  # Trace #1
    train_with_python_args(X, y, 20)  # Trace #2
    train_with_python_args(X, y, 30)  # Trace #3
