import functools

import tensorflow as tf

SCALE = 2.0
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


class Cache:
    def __init__(self, model):
        self.model = model
        self.fn = tf.function(self._call)
        self.cache = {}
        self._step = None

        @tf.function
        def forward(x):
            return self.model(x)

        self.forward = forward

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
    @tf.function
    def scaled(x):
        return x * SCALE

    return scaled


def make_once():
    @tf.function
    def f(x):
        return x + SCALE

    return f


f = make_once()


def train_once(data):
    # called once: one function, one trace
    @tf.function
    def step(x):
        return model(x) * SCALE

    return [step(x) for x in data]


def train_per_width(width, data):
    # each call builds a new model: one trace per call is inherent, nothing to move
    fresh = tf.keras.Sequential([tf.keras.layers.Dense(width)])
    optimizer = tf.keras.optimizers.SGD(0.1)

    @tf.function
    def step(x):
        return optimizer, fresh(x)

    return [step(x) for x in data]


@tf.function
def outer(x):
    # created while `outer` traces only
    @tf.function
    def inner(v):
        return v * SCALE

    return inner(x)


for x in range(3):
    outer(tf.constant(x))
    f(tf.constant(x))
    compiled(2)(tf.constant(x))
    train_per_width(x + 1, [tf.ones([1, 2])])

# module level: RTF101 reports it (there is no function to move it out of)
for batch in range(3):
    @tf.function
    def per_batch(v):
        return v + batch

    per_batch(tf.constant(1.0))
