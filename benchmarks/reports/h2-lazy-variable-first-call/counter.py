"""Counter that creates its variable on the first call of its tf.function (rebuilt from tensorflow/tensorflow#48851)."""

import tensorflow as tf


class Count:
    def __init__(self):
        self.count = None

    @tf.function
    def __call__(self, amount):
        if self.count is None:
            self.count = tf.Variable(0.0)
        return self.count.assign_add(amount)
