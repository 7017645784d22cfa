import json

import numpy as np
import tensorflow as tf

from decoder import HIDDEN, greedy_decode

rng = np.random.default_rng(0)
out = []
for max_len in [5, 7, 5, 9, 7, 5]:
    start = tf.constant(rng.integers(0, 12, size=(3,)).astype("int32"))
    state = tf.constant(rng.normal(size=(3, HIDDEN)).astype("float32"))
    tokens, final = greedy_decode(start, state, tf.constant(max_len))
    out.append({"tokens": tokens.numpy().tolist(), "state": round(float(tf.reduce_sum(final)), 4)})
print(json.dumps(out))
