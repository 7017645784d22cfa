import json

import numpy as np
import tensorflow as tf

from policy import NUM_ACTIONS, Policy

rng = np.random.default_rng(0)
policy = Policy()
actions = []
for t in range(12):
    obs = tf.constant(rng.normal(size=(2, 5)).astype("float32"))
    coin = tf.constant(rng.uniform(size=(2,)).astype("float32"))
    random_actions = tf.constant(rng.integers(0, NUM_ACTIONS, size=(2,)).astype("int32"))
    epsilon = tf.constant(max(0.05, 1.0 - t / 10), tf.float32)
    explore = t % 4 != 3  # every fourth step is an evaluation step
    actions.append(policy.compute_actions(obs, explore, epsilon, coin, random_actions).numpy().tolist())
print(json.dumps(actions))
