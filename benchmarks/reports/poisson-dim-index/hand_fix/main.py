import json

import numpy as np
import tensorflow as tf

from quadrature import find_neighbouring_indices_along_axis

n_quadpts = (5, 5, 5)
coords = [tf.constant(np.polynomial.legendre.leggauss(n)[0].astype("float32")) for n in n_quadpts]
out = []
for grid in [(32, 48, 64), (16, 16, 16), (40, 24, 8)]:
    grid_sizes = tf.constant(grid, tf.int32)
    for k, item in enumerate(coords):
        out.append(find_neighbouring_indices_along_axis(grid_sizes, item, tf.constant(k)).numpy().tolist())
print(json.dumps(out))
