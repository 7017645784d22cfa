import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from squad import predict_step  # noqa: E402

rng = np.random.default_rng(0)
out = []
for batch, length in [(4, 16), (3, 16), (4, 24), (2, 20), (4, 16)]:
    features = {
        "input_ids": tf.constant(rng.integers(0, 100, size=(batch, length)), tf.int64),
        "input_mask": tf.constant(rng.integers(0, 2, size=(batch, length)), tf.int64),
        "segment_ids": tf.constant(rng.integers(0, 2, size=(batch, length)), tf.int64),
    }
    out.append(predict_step(features).numpy().round(5).tolist())
print(json.dumps(out))
