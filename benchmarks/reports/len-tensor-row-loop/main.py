import json

import numpy as np
import tensorflow as tf

from rows import row_norms

rng = np.random.default_rng(0)
out = []
for rows in [3, 5, 4, 3, 6, 5]:
    out.append(row_norms(tf.constant(rng.normal(size=(rows, 4)).astype("float32"))).numpy().round(5).tolist())
print(json.dumps(out))
