import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from sampling import sample_one_step  # noqa: E402

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])
rng = np.random.default_rng(0)
sigmas = np.geomspace(1.0, 0.01, 5)
eps = 2e-3
x = tf.constant(rng.uniform(size=(3, 4)).astype("float32"))
for sigma_i in sigmas:
    alpha_i = eps * (sigma_i / sigmas[-1]) ** 2
    for t in range(4):
        noise = tf.constant(rng.normal(size=(3, 4)).astype("float32"))
        x = sample_one_step(model, x, noise, tf.constant(alpha_i, tf.float32))
print(json.dumps(x.numpy().round(4).tolist()))
