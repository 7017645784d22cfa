import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from model import predict  # noqa: E402

rng = np.random.default_rng(0)
outputs = []
for length in [5, 9, 7, 12, 5, 16, 9, 20]:
    t = tf.constant(rng.normal(size=(1, length, 4)).astype("float32"))
    outputs.append(predict(t).numpy().round(6).tolist())
print(json.dumps(outputs))
