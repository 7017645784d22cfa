import tensorflow as tf


@tf.function(reduce_retracing=True)
def total(x):
    return tf.reduce_sum(x)


def _mean(x):
    return tf.reduce_mean(x)


mean = tf.function(_mean, reduce_retracing=True)
mean2 = tf.function(reduce_retracing=True)(_mean)
strict = tf.function(_mean, reduce_retracing=False)
