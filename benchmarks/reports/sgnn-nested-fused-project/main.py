import json

import numpy as np
import tensorflow as tf

from sgnn import fused_project

rng = np.random.default_rng(0)
sums = []
for batch in range(6):
    features = tf.constant(rng.uniform(0, 100, size=(4, 5)).astype("float32"))
    sums.append(fused_project(features, 8, 7.0).numpy().sum(axis=(0, 1)).tolist())
print(json.dumps(sums))
