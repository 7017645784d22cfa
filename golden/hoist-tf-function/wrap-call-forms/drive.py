import numpy as np
import tensorflow as tf

from input import main

for value in main(tf.constant([1.0, -2.0, 0.5])):
    print(np.round(value.numpy(), 6).tolist())
