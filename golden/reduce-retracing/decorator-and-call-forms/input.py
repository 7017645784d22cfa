import tensorflow as tf


@tf.function(experimental_relax_shapes=True)
def total(x):
    return tf.reduce_sum(x)


def _mean(x):
    return tf.reduce_mean(x)


mean = tf.function(_mean, experimental_relax_shapes=True)
mean2 = tf.function(experimental_relax_shapes=True)(_mean)
strict = tf.function(_mean, experimental_relax_shapes=False)
