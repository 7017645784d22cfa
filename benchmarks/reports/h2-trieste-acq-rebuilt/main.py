import json

import numpy as np
import tensorflow as tf

from acquisition import expected_improvement, surrogate_mean

rng = np.random.default_rng(0)
candidates = tf.constant(rng.uniform(-1.0, 1.0, size=(256, 2)).astype("float32"))
observed = [float(v) for v in surrogate_mean(tf.constant(rng.uniform(-1, 1, size=(3, 2)).astype("float32"))).numpy()]
chosen = []
for step in range(6):
    best = min(observed)
    acquisition = expected_improvement(best)  # rebuilt with the new incumbent each step
    scores = acquisition(candidates)
    index = int(tf.argmax(scores))
    chosen.append([index, round(float(scores[index]), 5)])
    observed.append(float(surrogate_mean(candidates[index][tf.newaxis])[0]) + 0.05 * (step % 2))
print(json.dumps({"chosen": chosen, "best": round(min(observed), 5)}))
