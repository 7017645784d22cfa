import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from apply import batches, predict_batch  # noqa: E402

rng = np.random.default_rng(0)
totals = []
for n_items in [70, 45, 33, 58]:  # every file ends with a short batch
    probs = [predict_batch(x).numpy() for x in batches(n_items, 16, rng)]
    totals.append(np.concatenate(probs).sum(axis=0).round(5).tolist())
print(json.dumps(totals))
