import tensorflow as tf

from input import scale, shift

for batch in (1, 2, 3):
    print(scale(tf.ones([batch, 4])).numpy().sum(), shift(tf.ones([batch, 4])).numpy().sum())
