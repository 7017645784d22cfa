"""Decayed update that counts its calls with a Python attribute inside the tf.function (rebuilt from tensorflow/tensorflow#31362).

Hand fix: the call count is a tf.Variable (assign_add runs on every call) and step is passed as a float tensor."""

import tensorflow as tf


class CallTracker:
    def __init__(self):
        self.calls = tf.Variable(0)

    @property
    def value(self):
        return int(self.calls.numpy())


@tf.function
def _decayed_update(params, grads, step, calls):
    calls.assign_add(1)
    learning_rate = 0.5 / (step + 1.0)
    return params - learning_rate * grads


def decayed_update(params, grads, step, tracker):
    return _decayed_update(params, grads, tf.constant(step, tf.float32), tracker.calls)
