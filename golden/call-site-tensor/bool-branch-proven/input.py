"""An agent whose action body branches on a Python bool and takes raw NumPy observations.

Rebuilt from the pattern of keiohta/tf2rl#99 (fixed in keiohta/tf2rl#100 by passing
tensors): one trace per (flag, batch shape).  As a tensor, `if test:` becomes a tf.cond:
the proof traces both branches (one structure), neither has a side effect: safe.
"""

import numpy as np
import tensorflow as tf


class Agent(tf.Module):
    def __init__(self):
        super().__init__()
        self.actor = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3)])

    def get_action(self, state, test=False):
        single = state.ndim == 1
        state = np.expand_dims(state, 0) if single else state
        action = self._action_body(state, test)
        return action[0].numpy() if single else action.numpy()

    @tf.function
    def _action_body(self, state, test):
        logits = self.actor(state)
        if test:
            return tf.argmax(logits, axis=1)
        return tf.argmax(logits - tf.reduce_mean(logits, axis=1, keepdims=True), axis=1)
