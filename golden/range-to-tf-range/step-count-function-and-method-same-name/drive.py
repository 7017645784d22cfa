import numpy as np
import tensorflow as tf

import input as case

for value in case.main(tf.constant([1.0, 2.0])):
    print("result", np.round(np.asarray(value), 5).tolist())
print("traces train", case.train.experimental_get_tracing_count())
