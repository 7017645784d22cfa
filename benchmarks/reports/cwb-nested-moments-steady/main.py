import json

import numpy as np
import tensorflow as tf

from discrepancy import compute_cmd

rng = np.random.default_rng(0)
scale = tf.constant(2.0)
values = []
for step in range(8):
    ps = tf.constant(rng.normal(size=(32, 3)).astype("float32"))
    qs = tf.constant(rng.normal(size=(32, 3)).astype("float32"))
    values.append(float(compute_cmd(ps, qs, scale)))
print(json.dumps(values))
