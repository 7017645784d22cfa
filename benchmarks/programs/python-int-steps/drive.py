import json

import numpy as np
import tensorflow as tf

from training import train_with_python_args

rng = np.random.default_rng(0)
X = tf.constant(rng.normal(size=(32, 8)).astype("float32"))
y = tf.constant(rng.normal(size=(32,)).astype("float32"))
results = []
for _ in range(5):
    for steps in (10, 20, 30, 40):
        results.append(float(train_with_python_args(X, y, steps)))
with open("out.json", "w") as handle:
    json.dump(results, handle)
print("checksum", sum(results))
