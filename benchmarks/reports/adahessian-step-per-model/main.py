import json

import numpy as np
import tensorflow as tf

from training import cifar_training

tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(16, 6)).astype("float32"))
y = tf.constant(rng.integers(0, 2, size=(16,)))
results = {str(width): cifar_training(width, x, y) for width in (4, 8, 16)}
print(json.dumps(results))
