import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from train import train_step  # noqa: E402

rng = np.random.default_rng(0)
losses = []
for epoch in range(2):
    for length in [7, 11, 9, 14, 7]:
        inp = tf.constant(rng.integers(1, 50, size=(4, length)), dtype=tf.int64)
        tar = tf.constant(rng.integers(1, 50, size=(4, length)), dtype=tf.int64)
        losses.append(float(train_step(inp, tar)))
print(json.dumps(losses))
