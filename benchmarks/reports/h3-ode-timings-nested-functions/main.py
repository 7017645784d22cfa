import json

import numpy as np
import tensorflow as tf

from timings import get_ode_timings

rng = np.random.default_rng(0)
out = []
for dim in [4, 8, 4, 8, 4]:
    matrix = tf.constant(rng.normal(scale=0.3, size=(dim, dim)).astype("float32"))
    y0 = tf.constant(rng.normal(size=(dim,)).astype("float32"))
    out.append([round(v, 5) for v in get_ode_timings(matrix, y0)])
print(json.dumps(out))
