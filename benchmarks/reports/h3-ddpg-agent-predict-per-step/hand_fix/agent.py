"""DDPG-style agent whose act() and learn() call Keras predict / train_on_batch once per environment step (rebuilt from dion-jy/gym-ddpg-keras#1)."""

import numpy as np
import tensorflow as tf


class Agent:
    def __init__(self, state_dim, action_dim):
        tf.keras.utils.set_random_seed(0)
        self.actor = tf.keras.Sequential([
            tf.keras.Input(shape=(state_dim,)),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(action_dim, activation="tanh"),
        ])
        self.critic = tf.keras.Sequential([
            tf.keras.Input(shape=(state_dim + action_dim,)),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(1),
        ])
        self.critic.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.01), loss="mse")

    def act(self, state):
        return self.actor(state[np.newaxis], training=False).numpy()[0]  # a direct call, no predict loop per step

    def learn(self, state, action, reward):
        inputs = np.concatenate([state, action])[np.newaxis].astype("float32")
        return float(self.critic.train_on_batch(inputs, np.array([[reward]], dtype="float32")))
