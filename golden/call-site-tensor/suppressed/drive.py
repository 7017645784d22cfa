import numpy as np
import tensorflow as tf

from input import boost, damp, run

print([np.round(r.numpy(), 5).tolist() for r in run(tf.ones([2, 2]))])
print("traces", damp.experimental_get_tracing_count(), boost.experimental_get_tracing_count())
