"""Adaptive pooling over a Python list of variable-length segments whose count changes per call (rebuilt from tensorflow/tensorflow#45984)."""

import json

import numpy as np
import tensorflow as tf


@tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32, ragged_rank=1)])
def pooled_features(segments):
    return tf.reduce_max(segments, axis=1) + 0.5 * tf.reduce_mean(segments, axis=1)


rng = np.random.default_rng(0)
out = []
for count in [3, 5, 3, 4, 5, 2]:
    lengths = rng.integers(2, 7, size=count)
    segments = [tf.constant(rng.normal(size=(n,)).astype("float32")) for n in lengths]
    ragged = tf.RaggedTensor.from_row_lengths(tf.concat(segments, axis=0), tf.constant(lengths, tf.int64))
    out.append([round(float(v), 5) for v in pooled_features(ragged).numpy()])
print(json.dumps(out))
