"""Network parameters created lazily by a get_param() helper on the first call of the tf.functions that use them (rebuilt from tensorflow/tensorflow#47792)."""

import json

import numpy as np
import tensorflow as tf

_params = {}


def get_param(name, shape):
    if name not in _params:  # created on the first trace only
        init = np.random.default_rng(len(_params)).normal(scale=0.3, size=shape).astype("float32")
        _params[name] = tf.Variable(init, name=name)
    return _params[name]


@tf.function
def network(x):
    h = tf.tanh(tf.matmul(x, get_param("w1", (4, 8))))
    return tf.matmul(h, get_param("w2", (8, 1)))


@tf.function
def train_network(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(network(x) - y))
    params = [_params["w1"], _params["w2"]]
    for param, grad in zip(params, tape.gradient(loss, params)):
        param.assign_sub(0.1 * grad)
    return loss


rng = np.random.default_rng(0)
x = tf.constant(rng.normal(size=(16, 4)).astype("float32"))
y = tf.reduce_sum(x, axis=1, keepdims=True) * 0.3
network(x)  # builds the parameters
print(json.dumps([round(float(train_network(x, y)), 6) for step in range(6)]))
