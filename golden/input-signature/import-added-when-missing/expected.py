from tensorflow import function, reduce_sum
import tensorflow as tf


@function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def total(values):
    return reduce_sum(values)
