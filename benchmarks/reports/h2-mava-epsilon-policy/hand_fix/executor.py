"""Epsilon-greedy executor whose decaying epsilon reaches the policy as a Python float (rebuilt from instadeepai/Mava#346)."""

import tensorflow as tf

NUM_ACTIONS = 3


class FeedForwardExecutor:
    def __init__(self):
        tf.keras.utils.set_random_seed(0)
        self.q_network = tf.keras.Sequential([
            tf.keras.Input(shape=(4,)),
            tf.keras.layers.Dense(8, activation="relu"),
            tf.keras.layers.Dense(NUM_ACTIONS),
        ])

    @tf.function
    def _policy(self, observation, epsilon, coin, random_action):
        q_values = self.q_network(observation)
        greedy = tf.argmax(q_values, axis=-1, output_type=tf.int32)
        return tf.where(coin < epsilon, random_action, greedy)

    def select_action(self, observation, epsilon, coin, random_action):
        return self._policy(observation, tf.constant(epsilon, tf.float32), coin, random_action)
