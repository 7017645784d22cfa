import numpy as np
import tensorflow as tf

import input as case

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
y = tf.constant([[0.5, 0.25], [2.0, 1.0]])
for value in case.main(x, y):
    print("result", np.round(np.asarray(value), 5).tolist())
print("traces train_with_python_args", case.train_with_python_args.experimental_get_tracing_count())
