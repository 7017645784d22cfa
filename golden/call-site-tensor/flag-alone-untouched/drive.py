import numpy as np
import tensorflow as tf

from input import forward, run

x = tf.ones([2, 3])
print([np.round(r.numpy(), 5).tolist() for r in run(x)])
print("traces", forward.experimental_get_tracing_count())
