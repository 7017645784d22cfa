import numpy as np
import tensorflow as tf

from input import decode_all

tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
states = [(tf.constant(rng.normal(size=(2, 6)), tf.float32), n) for n in (5, 8, 6, 5, 10)]
for tokens in decode_all(states):
    print(tokens.numpy().tolist())
