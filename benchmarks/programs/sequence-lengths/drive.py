import json

import numpy as np
import tensorflow as tf

from encoder import encode

rng = np.random.default_rng(0)
results = []
for _ in range(3):
    for length in range(10, 30, 2):
        tokens = tf.constant(rng.integers(0, 1000, size=(4, length)), dtype=tf.int32)
        results.append(float(tf.reduce_sum(encode(tokens))))
with open("out.json", "w") as handle:
    json.dump(results, handle)
print("checksum", sum(results))
