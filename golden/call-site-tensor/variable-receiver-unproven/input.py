"""A method of a receiver that is not provably one tf.Variable keeps its int argument.

`log.scatter_nd_update([[epoch]], ...)`: `log` is rebound at module level, so the rewriter
cannot tell which object runs the method; `store.put([[epoch]], ...)` is a Python object's
method.  Neither call site may change.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
log = tf.Variable(tf.zeros([4]))
log = tf.Variable(tf.ones([4]))


class Store:
    def __init__(self):
        self.items = {}

    def put(self, key, value):
        self.items[str(key)] = value


store = Store()


@tf.function
def logged_step(model, x, epoch):
    loss = tf.reduce_mean(model(x))
    log.scatter_nd_update([[epoch]], [loss])
    return loss


@tf.function
def stored_step(model, x, epoch):
    loss = tf.reduce_mean(model(x))
    store.put([[epoch]], loss)
    return loss


def run(x):
    return [logged_step(model, x, epoch) for epoch in range(3)] + [stored_step(model, x, e) for e in range(3)]
