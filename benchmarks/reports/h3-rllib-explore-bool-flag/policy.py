"""Epsilon-greedy policy whose compute_actions takes `explore` as a Python bool (rebuilt from ray-project/ray#19981)."""

import tensorflow as tf

NUM_ACTIONS = 4


class Policy:
    def __init__(self):
        tf.keras.utils.set_random_seed(0)
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(8, activation="relu"),
                                          tf.keras.layers.Dense(NUM_ACTIONS)])

    @tf.function
    def compute_actions(self, obs, explore, epsilon, coin, random_actions):
        greedy = tf.argmax(self.model(obs), axis=-1, output_type=tf.int32)
        if explore:
            actions = tf.where(coin < epsilon, random_actions, greedy)
        else:
            actions = greedy
        return actions
