import tensorflow as tf


@tf.function
def flatten(x):
    return tf.reshape(x, [x.shape[0], -1])


@tf.function
def mean_of_rows(x):
    total = tf.reduce_sum(x, axis=0)
    return total / len(x)


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 3], dtype=tf.float32)])
def project(x):
    # the feature dimension never varies: reading it is fine
    w = tf.ones([x.shape[-1], 2])
    return tf.matmul(x, w)
