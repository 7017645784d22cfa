import json

import numpy as np
import tensorflow as tf

from gan import CODINGS, critic_step, generator_step

rng = np.random.default_rng(0)
data = rng.normal(loc=[2.0, -1.0], scale=0.5, size=(70, 2)).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices(data).batch(16)  # 16, 16, 16, 16, 6
history = []
for epoch in range(3):
    for real in dataset:
        noise = rng.normal(size=(real.shape[0], CODINGS)).astype("float32")
        d_loss = critic_step(real, noise)
        g_loss = generator_step(noise)  # the noise batch is as short as the last real batch
    history.append([round(float(d_loss), 5), round(float(g_loss), 5)])
print(json.dumps(history))
