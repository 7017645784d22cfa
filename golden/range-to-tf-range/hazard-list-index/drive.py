import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
import input as case  # noqa: E402

for value in case.main(tf.ones([2, 4])):
    print("result", np.round(np.asarray(value), 4).tolist())
print("traces apply_first", case.apply_first.experimental_get_tracing_count())
