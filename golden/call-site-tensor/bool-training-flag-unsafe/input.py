"""A `training` flag next to a varying Python float: the flag selects training-mode behaviour.

Two graphs, one per mode, are what the author wants; as a tensor both modes are
traced into one graph.  The float alone would be a safe fix; with the flag it stays
unsafe, with the reason.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def forward(model, x, scale, training):
    y = model(x) * scale
    if training:
        y = tf.nn.dropout(y, rate=0.5, seed=1)
    return y


def run(x):
    return [forward(model, x, s, t) for s in (0.5, 1.5) for t in (False, True)]
