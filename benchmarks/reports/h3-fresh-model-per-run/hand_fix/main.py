"""A new Keras model built, fitted and asked to predict in each of several runs (rebuilt from tensorflow/tensorflow#46012)."""

import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.uniform(-1, 1, size=(1, 20)).astype("float32")
y = np.array([[0.8]], dtype="float32")
out = []
for run in range(4):
    model = tf.keras.Sequential([tf.keras.Input(shape=(20,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(loss="mse", optimizer=tf.keras.optimizers.SGD(learning_rate=0.5))
    model.fit(x, y, batch_size=1, epochs=20, verbose=0)
    out.append(round(float(model.predict(x, verbose=0)[0, 0]), 4))
print(json.dumps(out))
