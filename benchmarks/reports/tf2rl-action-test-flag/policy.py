"""Policy-gradient agent whose action body takes a Python bool and raw numpy observations (rebuilt from keiohta/tf2rl#99)."""

import numpy as np
import tensorflow as tf


class VPG(tf.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.actor = tf.keras.Sequential([tf.keras.Input(shape=(obs_dim,)), tf.keras.layers.Dense(n_actions)])

    def get_action(self, state, test=False):
        single = state.ndim == 1
        state = np.expand_dims(state, 0) if single else state
        action = self._get_action_body(state, test)
        return action[0].numpy() if single else action.numpy()

    @tf.function
    def _get_action_body(self, state, test):
        logits = self.actor(state)
        if test:
            return tf.argmax(logits, axis=1)
        return tf.argmax(logits - tf.reduce_mean(logits, axis=1, keepdims=True), axis=1)
