import tensorflow as tf

from input import flatten, zeros_like_rows

for batch in (4, 6, 2):
    print(flatten(tf.ones([batch, 3, 2])).shape.as_list(), zeros_like_rows(tf.ones([batch, 5])).shape.as_list())
