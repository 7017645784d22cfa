import numpy as np
import tensorflow as tf

from input import noisy, train

print([np.round(r.numpy(), 5).tolist() for r in train(tf.ones([2, 2]))])
print("traces", noisy.experimental_get_tracing_count())
