"""`helper` retraced only while `caller` was traced: once `caller`'s graph exists it costs
nothing, so it is not a finding; fixing `caller` fixes both."""
import tensorflow as tf


@tf.function
def helper(x):
    return x * 2.0


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32)])
def caller(x):
    return tf.reduce_sum(helper(x), axis=0)
