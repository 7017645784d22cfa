import tensorflow as tf
import numpy as np


@tf.function(reduce_retracing=True)
def flatten(x):
    return tf.reshape(x, [x.shape[0], -1])


@tf.function(experimental_relax_shapes=True)
def rows(x, y):
    n = len(x)
    dims = y.shape.as_list()
    features = x.shape[-1]
    if x.shape[0] is None:
        return tf.zeros([1, features])
    return tf.zeros([n, features]) + dims[1]


@tf.function(reduce_retracing=True)
def rebinds(x):
    x = tf.reshape(x, [-1, 2])
    return x.shape[0]


@tf.function(reduce_retracing=True)
def per_row(x):
    rows = []
    for i in range(len(x)):
        rows.append(x[i] * 2)
    return tf.stack(rows)


@tf.function(reduce_retracing=True)
def buffer(x):
    return x + np.zeros(len(x) - 1)
