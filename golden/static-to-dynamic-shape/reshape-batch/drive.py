import tensorflow as tf

from input import flatten, pad_rows

for batch in (8, 5, 3):
    x = tf.reshape(tf.range(batch * 24, dtype=tf.float32), [batch, 6, 4])
    print(flatten(x).numpy().sum(), flatten(x).shape.as_list())
    print(pad_rows(tf.ones([batch, 3]), 5).numpy().sum())
