import json

import numpy as np
import tensorflow as tf

from model import CompositionalModel

rng = np.random.default_rng(0)
counts = rng.integers(1, 50, size=(6, 4)).astype("float32")
model = CompositionalModel(counts)
out = []
for chain in range(4):  # several chains, as when running log chains
    init = tf.constant(rng.normal(scale=0.1, size=(4,)).astype("float32"))
    state, lp = model.sampling(init, num_steps=30, step_size=0.002)
    out.append([round(float(v), 5) for v in state.numpy()] + [round(float(lp), 3)])
print(json.dumps(out))
