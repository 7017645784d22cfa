import json

import numpy as np
import tensorflow as tf

from integrand import integrand

rng = np.random.default_rng(0)
values = []
for n in [4, 4, 4]:
    values.append(integrand(tf.constant(rng.uniform(size=(3,)), tf.float64)).numpy().round(8).tolist())
    values.append(integrand(tf.constant(rng.uniform(size=(n, 3)), tf.float64)).numpy().round(8).tolist())
    values.append(integrand(tf.constant(rng.uniform(size=(2, n, 3)), tf.float64)).numpy().round(8).tolist())
print(json.dumps(values))
