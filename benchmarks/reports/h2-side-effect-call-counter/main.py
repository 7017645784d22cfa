import json

import numpy as np
import tensorflow as tf

from schedule import CallTracker, decayed_update

rng = np.random.default_rng(0)
tracker = CallTracker()
params = tf.constant(rng.normal(size=(3,)).astype("float32"))
for step in range(6):
    grads = 2.0 * params
    params = decayed_update(params, grads, step, tracker)
print(json.dumps({"params": np.round(params.numpy(), 5).tolist(), "updates": tracker.value}))
