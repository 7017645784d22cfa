import numpy as np
import tensorflow as tf

import input as case

x = tf.constant([1.0, 2.0, 4.0, 8.0])
smoother = case.Smoother()
for n in (1, 2, 5):
    print("result", np.round(np.asarray(case.decay(x, n)), 5).tolist())
    print("result", np.round(np.asarray(smoother.smooth(x, n)), 5).tolist())
print("traces decay", case.decay.experimental_get_tracing_count())
print("traces smooth", smoother.smooth.experimental_get_tracing_count())
