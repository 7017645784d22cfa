import functools

import tensorflow as tf


class Cache:
    def __init__(self, model):
        self.model = model
        self.fn = tf.function(self._call)
        self.cache = {}
        self._step = None

    def _call(self, x):
        return self.model(x)

    def get(self, key):
        if key not in self.cache:
            @tf.function(reduce_retracing=True)
            def predict(x):
                return self.model(x, training=False)

            self.cache[key] = predict
        return self.cache[key]

    def step(self):
        if self._step is None:
            self._step = tf.function(self._call)
        return self._step


@functools.lru_cache(maxsize=None)
def compiled(scale):
    return tf.function(lambda x: x * scale)


def make_once():
    @tf.function
    def f(x):
        return x + 1

    return f


f = make_once()


@tf.function
def module_level(x):
    return x * 2


for x in range(3):
    module_level(tf.constant(x))


def compile_step(fn):
    return tf.function(fn)


step_a = compile_step(lambda v: v + 1)
step_b = compile_step(lambda v: v - 1)


@tf.function
def outer(x):
    # created only while `outer` traces: once per trace of `outer`, never per call of it
    @tf.function
    def inner(v):
        return v * 2

    return inner(x)


for x in range(3):
    outer(tf.constant(x))
