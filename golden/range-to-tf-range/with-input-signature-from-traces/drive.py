import numpy as np
import tensorflow as tf

import input as case

x = tf.constant([1.0, 2.0, 3.0])
for n in (2, 4, 6):
    print("result", np.asarray(case.repeat_add(x, n)).tolist())
print("traces repeat_add", case.repeat_add.experimental_get_tracing_count())
