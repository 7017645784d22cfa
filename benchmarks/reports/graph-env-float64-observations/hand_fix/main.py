import json

import numpy as np
import tensorflow as tf

from policy import policy_logits

rng = np.random.default_rng(0)
out = []
for iteration in range(3):
    rollout_obs = rng.normal(size=(6, 4))  # numpy float64 from the environment
    out.append(float(tf.reduce_sum(policy_logits(tf.convert_to_tensor(rollout_obs, tf.float32)))))
    train_obs = tf.constant(rng.normal(size=(6, 4)), tf.float32)
    out.append(float(tf.reduce_sum(policy_logits(train_obs))))
print(json.dumps(out))
