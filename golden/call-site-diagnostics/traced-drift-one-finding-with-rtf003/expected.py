"""One problem, one finding: RTF105 and RTF103 defer to RTF003's recorded evidence."""
import tensorflow as tf


@tf.function
def mixed_type_op(x, y):
    return x + y


@tf.function
def head(x, n):
    if n > 0:
        return x[:n]
    return x


@tf.function
def untraced(x):
    return x * 2


mixed_type_op(tf.constant(1, dtype=tf.int32), tf.constant(2.0))
mixed_type_op(tf.constant(1.0), tf.constant(2.0))
head(tf.ones([4]), 1)
head(tf.ones([4]), 2)
untraced(tf.constant(1))  # not recorded: RTF105 alone reports it
untraced(tf.constant(1.0))
