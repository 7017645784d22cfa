"""A policy fed NumPy float64 observations in rollouts and float32 tensors in training.

Rebuilt from the pattern of NatLabRockies/graph-env#24: two traces, one per dtype; the
Keras model casts its input to float32 anyway.
"""

import numpy as np
import tensorflow as tf

policy_net = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])


@tf.function
def policy_logits(obs):
    return policy_net(obs)


def rollout(rng, steps):
    return [policy_logits(tf.cast(rng.normal(size=(6, 4)), tf.float32)) for _ in range(steps)]


def train(rng, steps):
    out = []
    for _ in range(steps):
        batch = tf.constant(rng.normal(size=(6, 4)), tf.float32)
        out.append(policy_logits(tf.cast(batch, tf.float32)))
    return out
