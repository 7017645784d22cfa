import tensorflow as tf

import input as case

tf.keras.utils.set_random_seed(0)
x = tf.ones([2, 3])
for y in case.run(x):
    print([round(float(v), 5) for v in tf.reshape(y, [-1])])
print("traces", case.step.experimental_get_tracing_count())
