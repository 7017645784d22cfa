"""Model re-compiled at every epoch to set a new learning rate (rebuilt from pythoncymetric/cymetric#4)."""

import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 4)).astype("float32")
y = (np.sin(x).sum(axis=1, keepdims=True) * 0.5).astype("float32")

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(8, activation="tanh"),
    tf.keras.layers.Dense(1),
])

model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")  # compiled once
losses = []
for epoch, lr in enumerate([0.1, 0.05, 0.02, 0.01, 0.005]):
    model.optimizer.learning_rate.assign(lr)
    history = model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    losses.append(round(float(history.history["loss"][-1]), 5))
print(json.dumps(losses))
