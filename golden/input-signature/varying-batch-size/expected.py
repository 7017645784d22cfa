"""Seed 004, Test 2: a model called on batches of different sizes."""
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(50,)), tf.keras.layers.Dense(4)])


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 50], dtype=tf.float32)])
def predict_no_signature(X):
    return model(X, training=False)
