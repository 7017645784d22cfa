"""Seed pattern: `model.predict` inside a tf.function (fails at trace time in Keras 3 and tf-keras)."""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(50,)), tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])


@tf.function
def predict_batch(X):
    return model.predict(X, verbose=0)


if __name__ == "__main__":
    for batch in (16, 16, 16):
        out = predict_batch(tf.constant(np.ones((batch, 50), np.float32)))
        print(out.shape)
