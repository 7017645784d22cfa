import json

import numpy as np
import tensorflow as tf

from unique import unique_values

rng = np.random.default_rng(0)
out = []
for n in [5, 9, 3, 12, 7]:
    out.append(unique_values(tf.constant(rng.integers(0, 6, size=(n,)), tf.int32)).numpy().tolist())
print(json.dumps(out))
