import json

import numpy as np
import tensorflow as tf

from inference import infer

rng = np.random.default_rng(0)
out = []
for request in range(6):
    x = tf.constant(rng.normal(size=(4, 3)).astype("float32"))
    out.append(infer(x).numpy().round(5).tolist())
print(json.dumps(out))
