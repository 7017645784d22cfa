"""An int axis index that indexes a tensor: a scalar int32 tensor indexes it just as well.

`grid_sizes[dim]`, `grid[dim, ...]` and `grid[..., dim]` read one element of a tensor: with
`dim` a Python int every axis is a new trace, with `dim` an int32 tensor one trace serves them
all (aligirayhanozbay/poisson_CNN#2).
"""

import tensorflow as tf


@tf.function
def neighbour_indices(grid_sizes, grid, coords, dim):
    dim_size = grid_sizes[dim]
    dx = tf.cast(2 / (dim_size - 1), tf.float32)
    lower = tf.cast(tf.math.floor((coords + 1) / dx), tf.int32)
    return tf.stack([lower, lower + 1], 1), grid[dim, ...] + grid[..., dim]


def run(grid_sizes, grid, coords):
    return [neighbour_indices(grid_sizes, grid, coords, k) for k in range(3)]
