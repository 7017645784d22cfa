"""Decayed update that counts its calls with a Python attribute inside the tf.function (rebuilt from tensorflow/tensorflow#31362)."""

import tensorflow as tf


class CallTracker:
    def __init__(self):
        self.value = 0


@tf.function
def decayed_update(params, grads, step, tracker):
    tracker.value += 1  # Python side effect: runs when the function traces, not when it runs
    learning_rate = 0.5 / (step + 1)
    return params - learning_rate * grads
