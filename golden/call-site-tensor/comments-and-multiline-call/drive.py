import numpy as np
import tensorflow as tf

from input import targets, td_target

out = targets(tf.constant([[1.0], [0.0]]), tf.constant([[0.5, 0.5], [1.0, -1.0]]))
print([np.round(r.numpy(), 5).tolist() for r in out])
print("traces", td_target.experimental_get_tracing_count())
