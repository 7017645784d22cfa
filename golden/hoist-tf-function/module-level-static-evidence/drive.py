import numpy as np
import tensorflow as tf

from input import run

rng = np.random.default_rng(0)
videos = [
    (tf.constant(rng.normal(size=(3,)), tf.float32), tf.constant(rng.normal(size=(4, 3)), tf.float32))
    for _ in range(4)
]
for out in run(videos):
    print(np.round(out.numpy(), 5).tolist())
