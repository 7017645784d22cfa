import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def evaluate(batches):
    outputs = []
    for batch in batches:
        outputs.append(model.predict(batch, verbose=0))
    return np.concatenate(outputs)
