import json

import numpy as np
import tensorflow as tf

from train import train_epoch

rng = np.random.default_rng(0)
x = rng.normal(size=(48, 4)).astype("float32")
y = (x @ np.array([[0.5], [-0.3], [0.2], [0.1]], dtype="float32")).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
print(json.dumps([round(train_epoch(dataset, 0.05), 5) for epoch in range(4)]))
