import functools

import tensorflow as tf


def scale(x, factor):
    return x * factor


def rebound(x, factor):
    return x + factor


rebound = tf.function(rebound)


def nested(x, factor):
    def local_scale(v, f):
        return v * f

    return tf.function(lambda v: local_scale(v, factor))(x)


def rebound_target(x, factor):
    return tf.function(lambda v: rebound(v, factor))(x)


def computes(x, factor):
    return tf.function(lambda v: scale(v * 2.0, factor))(x)


def twice(x):
    return tf.function(lambda v: scale(v, v))(x)


def escapes(factor):
    fn = tf.function(lambda v: scale(v, factor))
    return fn


def stored(x, factor, cache):
    fn = tf.function(functools.partial(scale, factor=factor))
    cache.append(fn)
    return fn(x)


def loop_bound(xs):
    out = []
    factor = 1.0
    step = tf.function(functools.partial(scale, factor=factor))
    for x in xs:
        factor = factor * 2.0
        out.append(step(x))
    return out


def main(xs):
    for x in xs:
        nested(x, 2.0)
        rebound_target(x, 2.0)
        computes(x, 2.0)
        twice(x)
        escapes(2.0)(x)
        stored(x, 2.0, [])
    loop_bound(xs)


class Runner:
    def __init__(self, model):
        self.model = model

    def run(self, x, training="no"):
        # forwards to an object's method: no finding from the code alone
        return tf.function(lambda v: self.model(v, training))(x)


def local_model(x, model, training="no"):
    return tf.function(lambda v: model(v, training))(x)


class Config:
    factor = 2.0


CONFIG = Config()


def attribute_bound(xs):
    step = tf.function(functools.partial(scale, factor=CONFIG.factor))
    out = []
    for x in xs:
        CONFIG.factor += 1.0
        out.append(step(x))
    return out


def builds_layer(x):
    return tf.function(lambda units: tf.keras.layers.Dense(units))(x)


def main_more(xs):
    for x in xs:
        attribute_bound(xs)
        builds_layer(3)
