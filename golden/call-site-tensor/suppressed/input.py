"""Suppression: on a call site (the function's fix is refused, naming it) and on a def (quiet)."""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2)])


@tf.function
def damp(model, x, rate):
    return model(x) * (1.0 - rate)


@tf.function  # retrace-fix: ignore[RTF005]
def boost(model, x, rate):
    return model(x) * (1.0 + rate)


def run(x):
    out = []
    for rate in (0.1, 0.2):
        out.append(damp(model, x, rate))  # retrace-fix: ignore[RTF005]
        out.append(boost(model, x, rate))
    return out
