"""VEGAS grid refinement whose while-loop body is a tf.function closing over this iteration's weights (rebuilt from N3PDF/vegasflow#85)."""

import tensorflow as tf


def refine_grid(weights, n_bins):
    wei_t = tf.cast(weights, tf.float64)
    average = tf.reduce_sum(wei_t) / n_bins

    @tf.function
    def while_body(bin_weight, n_bin):
        n_bin += 1
        bin_weight += wei_t[n_bin]
        return bin_weight, n_bin

    edges = []
    bin_weight, n_bin = tf.constant(0.0, tf.float64), tf.constant(-1)
    for _ in range(n_bins - 1):
        while bin_weight < average:
            bin_weight, n_bin = while_body(bin_weight, n_bin)
        edges.append(int(n_bin))
        bin_weight -= average
    return edges
