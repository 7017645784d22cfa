import json

import numpy as np
import tensorflow as tf

from heads import compute_single_output, heads

rng = np.random.default_rng(0)
out = []
for step in range(9):
    task = [0, 2, 1, 0, 1, 2, 2, 0, 1][step]
    inputs = tf.constant(rng.normal(size=(2, 4)).astype("float32"))
    out.append(np.round(compute_single_output(heads, task, inputs).numpy(), 5).tolist())
print(json.dumps(out))
