import numpy as np
import tensorflow as tf


class Learner:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
        self.model.compile(optimizer="sgd", loss="mse")

    def learn(self, states, targets):
        return self.model.train_on_batch(states, targets)

    def fit_once(self, states, targets):
        return self.model.train_on_batch(states, targets)  # not called in a loop


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")


def train(learner, batches):
    for states, targets in batches:
        learner.learn(states, targets)
        model.train_on_batch(states, targets)
    return learner.fit_once(*batches[0])
