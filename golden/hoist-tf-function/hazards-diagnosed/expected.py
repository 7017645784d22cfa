import logging

import tensorflow as tf

SCALE = 2.0
counter = []
step = None


def returns_it():
    @tf.function
    def scaled(x):
        return x * SCALE

    return scaled


def creates_variables(x):
    @tf.function
    def accumulate(v):
        total = tf.Variable(0.0)
        total.assign_add(tf.reduce_sum(v))
        return total.read_value()

    return accumulate(x)


def decorated_twice(x):
    @logging_calls
    @tf.function
    def doubled(v):
        return v * 2.0

    return doubled(x)


def name_taken(x):
    @tf.function
    def step(v):
        return v * SCALE

    return step(x)


def shadows_builtin(x):
    @tf.function
    def filter(v):
        return v * SCALE

    return filter(x)


def side_effects(x):
    @tf.function
    def noisy(v):
        logging.info("tracing noisy")
        counter.append(1)
        return v * SCALE

    return noisy(x)


def logging_calls(fn):
    return fn


class Config:
    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):
        return isinstance(other, Config) and other.scale == self.scale

    def apply(self, x):
        @tf.function
        def scaled(v):
            return v * self.scale

        return scaled(x)


class Layered(tf.keras.layers.Layer):
    def run(self, x):
        @tf.function
        def forward(v):
            return self(v) * 2.0

        return forward(x)


class Temperature:
    def __init__(self):
        self.value = 1.0

    def warm_up(self):
        self.value += 1.0

    def apply(self, x):
        @tf.function
        def scaled(v):
            return v * self.value

        return scaled(x)


def main(data, config, layered, temperature):
    for x in data:
        returns_it()(x)
        creates_variables(x)
        decorated_twice(x)
        name_taken(x)
        shadows_builtin(x)
        side_effects(x)
        config.apply(x)
        layered.run(x)
        temperature.apply(x)
