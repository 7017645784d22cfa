"""Calls made inside another tf.function's body: they trace only while the caller traces.

Rebuilt from the pattern of lingxiaoli94/CWB#2: the outer function unrolls k = 2..5 over
the inner one.  The inner one traces once per k, but only inside the outer trace; at
steady state nothing retraces, so nothing is reported (a call from eager code still is).
"""

import tensorflow as tf


@tf.function
def kth_moment(ps, k):
    mean = tf.reduce_mean(ps, 0)
    return tf.reduce_mean(tf.math.pow(ps - mean, k), 0)


@tf.function
def discrepancy(ps, qs, max_k=5):
    result = tf.norm(tf.reduce_mean(ps, 0) - tf.reduce_mean(qs, 0))
    for k in range(2, max_k + 1):
        result += tf.norm(kth_moment(ps, k) - kth_moment(qs, k))
    for exponent in [2.0, 3.0]:
        result += tf.reduce_sum(kth_moment(ps, exponent))
    return result


def eager_report(ps):
    return [kth_moment(ps, k) for k in range(2, 4)]
