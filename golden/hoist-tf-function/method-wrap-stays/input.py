import tensorflow as tf


def traced(fn):
    return fn


class Slotted:
    __slots__ = ("w",)

    def __init__(self):
        self.w = tf.Variable(1.0)

    def forward(self, x):
        return self.w * x

    def run(self, x):
        return tf.function(self.forward)(x)


class Decorated:
    @traced
    def forward(self, x):
        return x

    def run(self, x):
        return tf.function(self.forward)(x)


class Stateful:
    def forward(self, x):
        return tf.Variable(x)

    def run(self, x):
        return tf.function(self.forward)(x)


class Factory:
    def __init__(self):
        self.fn = tf.function(self.forward)

    def forward(self, x):
        return x

    def build_fn(self):
        return tf.function(self.forward)  # returned: callers may expect a new function

    def cached(self, x):
        if self._fn is None:
            self._fn = tf.function(self.forward)
        return self._fn(x)
