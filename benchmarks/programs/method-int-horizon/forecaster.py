"""A tf.function method whose Python int horizon drives a loop."""

import tensorflow as tf


class Forecaster:
    def __init__(self, decay):
        self.decay = tf.constant(decay)

    @tf.function
    def forecast(self, state, horizon):
        total = tf.zeros_like(state)
        for _ in range(horizon):
            state = state * self.decay + 0.1
            total = total + state
        return total
