import json

import numpy as np
import tensorflow as tf

from augment import augment

np.random.seed(0)
x = tf.ones([3])
out = []
for level in [0, 1, 2, 0, 1, 2, 3]:
    out.append(augment(x, level).numpy().round(6).tolist())
print(json.dumps(out))
