import tensorflow as tf

from input import shifted

for k in (1, 2, 3):
    print(shifted(tf.constant([1, 2]), k).numpy().tolist())
