import tensorflow as tf


@tf.function
def mixed_type_op(x, y):
    return x + y


# Retracing occurs due to changing data types of x
mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))
mixed_type_op(tf.constant(1.0), tf.constant(2.0))
mixed_type_op(tf.constant(1, dtype=tf.int64), tf.constant(2.0))
