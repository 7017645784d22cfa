import json

import numpy as np
import tensorflow as tf

from net import forward

rng = np.random.default_rng(0)
configs = [(2, True), (3, False), (2, True), (3, False), (3, True), (2, True), (3, False)]
out = []
for num_layers, training in configs:
    x = tf.constant(rng.normal(size=(4, 6)).astype("float32"))
    out.append(round(float(tf.reduce_sum(forward(x, num_layers, training))), 5))
print(json.dumps(out))
