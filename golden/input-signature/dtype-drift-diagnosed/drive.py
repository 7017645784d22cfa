import tensorflow as tf

from input import mixed_type_op

print(float(mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))))
print(float(mixed_type_op(tf.constant(1.0), tf.constant(2.0))))
print(float(mixed_type_op(tf.constant(1, dtype=tf.int64), tf.constant(2.0))))
