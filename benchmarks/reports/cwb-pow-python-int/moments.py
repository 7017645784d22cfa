"""Central moments of a point cloud (rebuilt from lingxiaoli94/CWB issue #2)."""

import tensorflow as tf


@tf.function
def kth_marginal_moment(ps, k):
    mean = tf.reduce_mean(ps, 0)
    centred = ps - tf.expand_dims(mean, 0)
    return tf.reduce_mean(tf.math.pow(centred, k), 0)
