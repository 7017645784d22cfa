"""Reshape a 1-D tensor to broadcast along axis `dim` of an ndims-D grid (rebuilt from aligirayhanozbay/poisson_CNN#2, integral_loss.py)."""

import tensorflow as tf


@tf.function
def expand_1d_tensor_to_k_dims(tensor, dim, ndims):
    newshape = [1 for _ in range(dim)] + [-1] + [1 for _ in range(ndims - dim - 1)]
    return tf.reshape(tensor, newshape)
