import json

import numpy as np
import tensorflow as tf

from nufft import interp

rng = np.random.default_rng(0)
out = []
for n_coords in [16, 24, 20, 16, 32]:
    image = tf.constant(rng.normal(size=(2, 8)).astype("float32"))
    coords = tf.constant(rng.normal(size=(n_coords, 8)).astype("float32"))
    out.append(float(tf.reduce_sum(interp(image, coords))))
print(json.dumps(out))
