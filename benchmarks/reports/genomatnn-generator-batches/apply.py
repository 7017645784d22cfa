"""Apply a classifier to batches from a generator whose last batch is short (rebuilt from grahamgower/genomatnn#13)."""

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(3), tf.keras.layers.Softmax()])


def batches(n_items, batch_size, rng):
    for start in range(0, n_items, batch_size):
        size = min(batch_size, n_items - start)
        yield rng.normal(size=(size, 6)).astype(np.float32)


@tf.function
def predict_batch(x):
    return model(x, training=False)
