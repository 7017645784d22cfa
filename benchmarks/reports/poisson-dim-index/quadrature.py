"""Neighbouring grid indices of quadrature points along one axis (rebuilt from aligirayhanozbay/poisson_CNN#2)."""

import tensorflow as tf


@tf.function
def find_neighbouring_indices_along_axis(grid_sizes, quadrature_coords_along_axis, dim):
    dim_size = grid_sizes[dim]
    dx = tf.cast(2 / (dim_size - 1), tf.float32)
    lower_idx = tf.cast(tf.math.floor((quadrature_coords_along_axis + 1) / dx), tf.int32)
    upper_idx = tf.cast(tf.math.ceil((quadrature_coords_along_axis + 1) / dx), tf.int32)
    return tf.stack([lower_idx, upper_idx], 1)
