import tensorflow as tf

from input import caller

for batch in (2, 4, 8):
    print(caller(tf.ones([batch, 3])).numpy().tolist())
