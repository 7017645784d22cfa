import tensorflow as tf

from input import power

for k in (1, 2, 3):
    print(power(tf.constant([1.0, 2.0, 3.0]), k).numpy().tolist())
