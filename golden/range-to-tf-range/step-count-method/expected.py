import tensorflow as tf


class Forecaster:
    def __init__(self, decay):
        self.decay = tf.constant(decay)

    @tf.function
    def forecast(self, state, horizon):
        total = tf.zeros_like(state)
        for _ in tf.range(horizon):
            state = state * self.decay + 0.1
            total = total + state
        return total


def main():
    forecaster = Forecaster(0.9)
    state = tf.constant([1.0, 2.0, 3.0])
    return [forecaster.forecast(state, tf.constant(h)) for h in (1, 5, 10, 20)], forecaster
