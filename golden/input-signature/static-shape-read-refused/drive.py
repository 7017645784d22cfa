import tensorflow as tf

from input import flatten, mean_of_rows, project

for batch in (2, 3, 5):
    x = tf.ones([batch, 3, 2])
    print(flatten(x).shape, mean_of_rows(tf.ones([batch, 3])).numpy().tolist(), project(tf.ones([batch, 3])).shape)
