import json

import numpy as np
import tensorflow as tf

from decoder import greedy_decode

rng = np.random.default_rng(0)
decoded = []
for max_len in [5, 8, 6, 5, 10, 8]:
    state = tf.constant(rng.normal(size=(2, 6)).astype("float32"))
    decoded.append(greedy_decode(state, max_len).numpy().tolist())
print(json.dumps(decoded))
