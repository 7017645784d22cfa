"""Seed 004, test 2: a prediction function called with five batch sizes."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential(
    [tf.keras.Input((50,))]
    + [tf.keras.layers.Dense(128, activation="relu") for _ in range(6)]
    + [tf.keras.layers.Dense(1)]
)


@tf.function
def predict_no_signature(X):
    return model(X, training=False)
