"""Seed 002, Example 3: a new Python object per call is a new trace key."""
import tensorflow as tf


class MyData:
    def __init__(self, value):
        self.value = value


@tf.function
def use_custom_class(data, x):
    return x * data.value
