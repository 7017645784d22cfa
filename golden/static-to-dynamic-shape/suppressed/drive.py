import tensorflow as tf

from input import flatten, flatten_all

for batch in (4, 6):
    print(flatten(tf.ones([batch, 3, 2])).shape.as_list(), flatten_all(tf.ones([batch, 3, 2])).shape.as_list())
