from tensorflow import function, shape, zeros
import tensorflow as tf


@function
def row_total(x):
    total = zeros([])
    for i in tf.range(shape(x)[0]):
        total += x[i]
    return total
