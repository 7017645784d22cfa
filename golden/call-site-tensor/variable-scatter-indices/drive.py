import tensorflow as tf

import input as case

tf.keras.utils.set_random_seed(0)
case.model.set_weights([tf.ones([3, 2]).numpy(), tf.zeros([2]).numpy()])
print([round(float(v), 5) for v in case.run(tf.ones([2, 3]))])
print([round(float(v), 5) for v in case.history.numpy()])
print("traces", case.train_step.experimental_get_tracing_count())
