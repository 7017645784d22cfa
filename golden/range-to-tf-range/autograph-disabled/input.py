import tensorflow as tf


@tf.function(autograph=False)
def no_autograph(x):
    acc = tf.zeros([])
    for i in range(tf.shape(x)[0]):
        acc += x[i]
    return acc


@tf.function
def with_py_function(x):
    def host_side(values):
        total = 0.0
        for i in range(tf.shape(values)[0]):
            total += float(values[i])
        return total

    return tf.py_function(host_side, [x], tf.float32)
