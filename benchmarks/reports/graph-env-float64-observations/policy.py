"""Policy network fed numpy float64 observations in rollouts and float32 tensors in training (rebuilt from NatLabRockies/graph-env#24)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
policy_net = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])


@tf.function
def policy_logits(obs):
    return policy_net(obs)
