"""Per-example prediction on variable-length sequences (rebuilt from tensorflow/tensorflow#38561)."""

import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(None, 4)),
    tf.keras.layers.Conv1D(8, 3, padding="same", activation="relu"),
    tf.keras.layers.GlobalAveragePooling1D(),
    tf.keras.layers.Dense(2),
])


@tf.function
def predict(t):
    return model(t)
