import numpy as np
import tensorflow as tf

from input import global_pool

rng = np.random.default_rng(0)
for batch in (8, 5, 3, 5):
    print(round(float(tf.reduce_sum(global_pool(tf.constant(rng.normal(size=(batch, 4, 4, 2)), tf.float32)))), 4))
