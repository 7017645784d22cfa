"""Forward pass whose depth and training mode are Python hyperparameters (rebuilt from tensorflow/tensorflow#24742)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
layers = [tf.keras.layers.Dense(6, activation="tanh") for _ in range(3)]
for layer in layers:
    layer.build((None, 6))


@tf.function
def forward(x, num_layers, training):
    h = x
    for i in range(num_layers):
        h = layers[i](h)
    if training:
        h = h + 0.01 * tf.reduce_sum(tf.square(h), axis=-1, keepdims=True)
    return h
