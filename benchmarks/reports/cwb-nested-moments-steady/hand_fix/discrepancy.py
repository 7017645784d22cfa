"""Central moment discrepancy: an outer tf.function unrolls k = 2..5 over an inner one (rebuilt from lingxiaoli94/CWB, cwb/common/utils.py, issue #2)."""

import tensorflow as tf


@tf.function
def kth_marginal_moment(ps, k):
    mean = tf.reduce_mean(ps, 0)
    return tf.reduce_mean(tf.math.pow(ps - tf.expand_dims(mean, 0), k), 0)


@tf.function
def compute_cmd(ps, qs, scale, max_k=5):
    result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0)) / scale
    for k in range(2, max_k + 1):
        result += tf.norm(kth_marginal_moment(ps, k) - kth_marginal_moment(qs, k)) / (scale ** k)
    return result
