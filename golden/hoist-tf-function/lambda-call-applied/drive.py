import numpy as np
import tensorflow as tf

from input import main

print(np.round(main(tf.constant([1.0, -2.0, 0.5])).numpy(), 6).tolist())
