"""A scoring tf.function that takes a dict of token ids and mask whose sequence length changes per batch (rebuilt from the Q&A 'use dictionary in tf.function input_signature')."""

import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
embedding = tf.Variable(np.random.default_rng(1).normal(size=(50, 8)).astype("float32"))


@tf.function
def score(features):
    vectors = tf.gather(embedding, features["ids"])
    mask = tf.cast(features["mask"], tf.float32)[..., tf.newaxis]
    pooled = tf.reduce_sum(vectors * mask, axis=1) / tf.maximum(tf.reduce_sum(mask, axis=1), 1.0)
    return tf.reduce_sum(pooled, axis=-1)


rng = np.random.default_rng(0)
out = []
for seq_len in [7, 12, 9, 12, 15, 7]:
    lengths = rng.integers(1, seq_len + 1, size=4)
    ids = rng.integers(0, 50, size=(4, seq_len)).astype("int32")
    mask = (np.arange(seq_len)[None, :] < lengths[:, None]).astype("int32")
    out.append([round(float(v), 5) for v in score({"ids": tf.constant(ids), "mask": tf.constant(mask)}).numpy()])
print(json.dumps(out))
