import json

import numpy as np
import tensorflow as tf

from ops import equalize

rng = np.random.default_rng(0)
out = []
for i in range(6):
    image = tf.constant(rng.uniform(0, 255, size=(8, 8, 3)).astype("float32"))
    out.append(round(float(tf.reduce_sum(equalize(image))), 3))
print(json.dumps(out))
