import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from layers import PointEncoder  # noqa: E402

rng = np.random.default_rng(0)
encoder = PointEncoder(5)
out = []
for n_points in [10, 15, 12, 10, 30, 15, 22]:
    points = tf.constant(rng.normal(size=(2, n_points, 3)).astype("float32"))
    out.append(encoder(points).numpy().round(5).tolist())
print(json.dumps(out))
