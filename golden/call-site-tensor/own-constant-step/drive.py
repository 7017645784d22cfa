import tensorflow as tf

import input as case

tf.keras.utils.set_random_seed(0)
case.model.set_weights([tf.ones([3, 2]).numpy(), tf.zeros([2]).numpy()])
for y in case.run(tf.ones([2, 3])):
    print([round(float(v), 5) for v in tf.reshape(y, [-1])])
print("traces", case.scaled.experimental_get_tracing_count())
