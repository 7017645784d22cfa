"""The tf.function(f) form called by the name it is bound to, and a method called on self."""

import tensorflow as tf


def _scale(model, x, factor):
    return model(x) * factor


scale = tf.function(_scale)


class Smoother(tf.Module):
    def __init__(self):
        super().__init__()
        self.net = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2)])

    @tf.function
    def smooth(self, net, x, beta):
        return beta * x + (1.0 - beta) * net(x)

    def run(self, x):
        return [self.smooth(self.net, x, tf.constant(beta, dtype=tf.float32)) for beta in (0.1, 0.5, 0.9)]


def run(model, x):
    return [scale(model, x, tf.constant(factor, dtype=tf.float32)) for factor in (2.0, 3.0)]
