"""A `training` flag is the only thing that varies: two graphs, usually on purpose."""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def forward(model, x, training):
    if training:
        x = x * 2.0
    return model(x)


def run(x):
    return [forward(model, x, True), forward(model, x, False), forward(model, x, True)]
