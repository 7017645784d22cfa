import tensorflow as tf

import input as case

x = tf.ones([2, 3])
print([y.shape.as_list() for y in case.run(x)])
print("traces", case.forward.experimental_get_tracing_count())
