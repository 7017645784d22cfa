import tensorflow as tf


@tf.function(autograph=False)
def no_autograph(x):
    acc = tf.zeros([])
    for i in range(tf.shape(x)[0]):
        acc += x[i]
    return acc
