import json

import numpy as np
import tensorflow as tf

from pix2pix import history, train_step  # noqa: E402

rng = np.random.default_rng(0)
losses = []
for epoch in range(5):
    for n in range(3):
        inp = tf.constant(rng.normal(size=(4, 8)).astype("float32"))
        tar = tf.constant(np.tanh(rng.normal(size=(4, 8))).astype("float32"))
        losses.append(float(train_step(inp, tar, tf.constant(epoch))))
print(json.dumps({"losses": losses, "history": history.numpy().round(6).tolist()}))
