import numpy as np
import tensorflow as tf


@tf.function
def python_ints(x):
    if x.shape[0] > 4:  # a Python test
        x = x * 2.0
    return x


@tf.function
def numpy_and_floats(x, y):
    scale = x.shape[0] * 0.5  # a Python float: a tensor here would be int32
    buffer = np.zeros(y.shape[0])  # numpy needs a Python int
    half = tf.reshape(y, [int(y.shape[0] / 2), -1])
    return x * scale, buffer, half


@tf.function
def returned(x):
    return x.shape[0]


@tf.function
def name_used_in_python(x):
    n = x.shape[0]
    print("rows", n)
    return tf.reshape(x, [n, -1])


@tf.function
def unrolled_with_list(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append(x[i] * 2.0)
    return tf.stack(rows)


@tf.function
def rebinds(x):
    x = tf.concat([x, x], 0)
    return tf.reshape(x, [x.shape[0], -1])


@tf.function
def shadowed(x):
    def inner(x):
        return tf.reshape(x, [x.shape[0], -1])

    return inner(x[:1])
