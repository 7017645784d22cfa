"""Hyperparameter search that builds a new model and trainer per trial (rebuilt from deephyper/deephyper#149)."""

import tensorflow as tf


class Trainer:
    def __init__(self, units, learning_rate):
        self.model = tf.keras.Sequential([
            tf.keras.Input(shape=(5,)),
            tf.keras.layers.Dense(units, activation="relu"),
            tf.keras.layers.Dense(1),
        ])
        self.optimizer = tf.keras.optimizers.SGD(learning_rate)
        self.optimizer.build(self.model.trainable_variables)

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x) - y))
        gradients = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.model.trainable_variables))
        return loss
