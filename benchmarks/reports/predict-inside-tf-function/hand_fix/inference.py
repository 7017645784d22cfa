"""Inference wrapper calling model.predict inside a tf.function (rebuilt from the Stack Overflow answer summarised at openillumi.com: use model(x) instead of model.predict(x))."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def infer(x):
    return model(x, training=False)
