import keras
import numpy as np
from tensorflow import keras as tfk

inputs = keras.Input(shape=(3,))
outputs = keras.layers.Dense(2)(inputs)
functional = keras.Model(inputs, outputs)
seq = tfk.Sequential([tfk.layers.Dense(1)])


def score(stream):
    results = []
    while stream:
        batch = stream.pop()
        results.append(
            functional(batch, training=False).numpy()  # one batch at a time
        )
    return results


def score_all(batches):
    return [seq(b, training=False).numpy() for b in batches]


def best(batches):
    return {i: np.argmax(seq.predict(x=b)) for i, b in enumerate(batches)}
