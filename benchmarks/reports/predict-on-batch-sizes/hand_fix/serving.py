"""Batch inference with a batch size that changes every call (rebuilt from tensorflow/tensorflow#34907)."""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(1)])


@tf.function(reduce_retracing=True)
def predict_on_batch(x):
    return model(x, training=False)
