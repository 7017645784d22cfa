import numpy as np
import tensorflow as tf

from input import equalize, equalize_partial

rng = np.random.default_rng(0)
for _ in range(4):
    image = tf.constant(rng.uniform(0, 255, size=(4, 4, 3)).astype("float32"))
    print(round(float(tf.reduce_sum(equalize(image))), 3), round(float(tf.reduce_sum(equalize_partial(image))), 3))
