import json

import numpy as np
import tensorflow as tf

from preprocess import reshape_tensors_in_dataset

rng = np.random.default_rng(0)
out = []
for step in range(4):
    example = {
        "input_ids": tf.constant(rng.integers(0, 100, size=(2, 3, 5)), tf.int32),
        "input_mask": tf.constant(rng.integers(0, 2, size=(2, 3, 5)), tf.int32),
        "weights": tf.constant(rng.normal(size=(2, 3)).astype("float32")),
    }
    flat = reshape_tensors_in_dataset(example)
    out.append({k: np.round(v.numpy(), 5).tolist() for k, v in sorted(flat.items())})
print(json.dumps(out))
