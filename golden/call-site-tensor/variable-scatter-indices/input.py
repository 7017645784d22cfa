"""An int epoch written into a module-level tf.Variable at index `[[epoch]]`.

`history.scatter_nd_update([[epoch]], [loss])` converts its indices with
`tf.convert_to_tensor`, which packs a scalar int32 tensor in a nested list as it packs a
Python int: `history` is bound once, to `tf.Variable(...)`, so the call sites may pass
`tf.constant(epoch)` (solaris33/deep-learning-tensorflow-book-code#8).
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
history = tf.Variable(tf.zeros([4]))


@tf.function
def train_step(model, x, epoch):
    loss = tf.reduce_mean(model(x))
    history.scatter_nd_update([[epoch]], [loss])
    return loss


def run(x):
    return [train_step(model, x, epoch) for epoch in range(4)]
