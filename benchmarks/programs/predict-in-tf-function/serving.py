"""Seed 004, test 1: `model.predict` inside a tf.function.

Keras 3 (TF >= 2.16) fails at trace time ('SymbolicTensor' object has no
attribute 'numpy'); tf_keras raises a RuntimeError.  RTF002 calls the model
directly.
"""

import tensorflow as tf


def build_model():
    return tf.keras.Sequential(
        [tf.keras.Input((50,)), tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)]
    )


@tf.function
def predict_with_retracing(model, X):
    return model.predict(X, verbose=0)
