import numpy as np
import tensorflow as tf

import input as case

tf.keras.utils.set_random_seed(0)
for head in case.heads:
    head.set_weights([np.ones([4, 2], "float32"), np.zeros([2], "float32")])
print([np.round(r.numpy(), 5).tolist() for r in case.run(tf.ones([2, 4]))])
print("traces", case.compute_single_output.experimental_get_tracing_count(), case.scaled.experimental_get_tracing_count())
