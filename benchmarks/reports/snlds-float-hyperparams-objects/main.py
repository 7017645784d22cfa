import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from trainer import train_step  # noqa: E402

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
optimizer = tf.keras.optimizers.SGD(0.01)
rng = np.random.default_rng(0)
losses = []
step = 0
while step < 12:
    learning_rate = 0.01 * 0.9 ** (step // 3)
    temperature = max(1.0, 3.0 - 0.5 * (step // 3))
    xent_coef = 0.1 if step < 6 else 0.0
    x = tf.constant(rng.normal(size=(8, 3)).astype("float32"))
    y = tf.constant(rng.normal(size=(8,)).astype("float32"))
    losses.append(float(train_step((x, y), model, optimizer, learning_rate, temperature, xent_coef)))
    step += 1
print(json.dumps(losses))
