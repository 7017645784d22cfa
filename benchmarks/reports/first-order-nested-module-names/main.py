import json

import numpy as np
import tensorflow as tf

from animate import animate

rng = np.random.default_rng(0)
out = []
for video in range(5):
    source = tf.constant(rng.normal(size=(3,)).astype("float32"))
    driving = tf.constant(rng.normal(size=(4, 3)).astype("float32"))
    out.append(animate(source, driving).numpy().round(5).tolist())
print(json.dumps(out))
