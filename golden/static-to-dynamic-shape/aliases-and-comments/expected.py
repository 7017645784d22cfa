from tensorflow import function, reshape, zeros
import tensorflow as tf


@function
def flatten(x):
    # flatten each example
    return reshape(x, [tf.shape(x)[0], -1])  # batch first


@function(reduce_retracing=True)
def zeros_like_rows(x):
    return zeros([tf.shape(x)[0],  # rows
                  3])
