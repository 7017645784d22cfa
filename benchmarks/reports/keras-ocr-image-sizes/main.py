import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from detector import detect  # noqa: E402

rng = np.random.default_rng(0)
scores = []
for height, width in [(32, 48), (40, 40), (32, 48), (64, 24), (48, 56), (40, 40)]:
    images = tf.constant(rng.uniform(size=(2, height, width, 3)).astype("float32"))
    scores.append(detect(images).numpy().round(6).tolist())
print(json.dumps(scores))
