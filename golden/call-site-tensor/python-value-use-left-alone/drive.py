import numpy as np
import tensorflow as tf

from input import report, run

print([np.round(r.numpy(), 5).tolist() for r in run(tf.ones([2, 2]))])
print("traces", report.experimental_get_tracing_count())
