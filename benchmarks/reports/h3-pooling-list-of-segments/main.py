"""Adaptive pooling over a Python list of variable-length segments whose count changes per call (rebuilt from tensorflow/tensorflow#45984)."""

import json

import numpy as np
import tensorflow as tf


@tf.function
def pooled_features(segments):
    return tf.stack([tf.reduce_max(s) + 0.5 * tf.reduce_mean(s) for s in segments])


rng = np.random.default_rng(0)
out = []
for count in [3, 5, 3, 4, 5, 2]:
    lengths = rng.integers(2, 7, size=count)
    segments = [tf.constant(rng.normal(size=(n,)).astype("float32")) for n in lengths]
    out.append([round(float(v), 5) for v in pooled_features(segments).numpy()])
print(json.dumps(out))
