import json

import numpy as np
import tensorflow as tf

from train import train_step

tf.keras.utils.set_random_seed(0)
model = tf.keras.layers.Dense(10)
optimizer = tf.keras.optimizers.Adam()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
rng = np.random.default_rng(0)
losses = []
for epoch in range(3):
    for batch_size in [10, 20, 10, 30, 40, 50]:
        x = tf.constant(rng.normal(size=(batch_size, 5)).astype("float32"))
        y = rng.integers(0, 10, size=batch_size)
        losses.append(float(train_step(x, y, model, optimizer, loss_fn)))
with open("out.json", "w") as handle:
    json.dump(losses, handle)
print("checksum", sum(losses))
