"""An int epoch written into a tf.Variable attribute at index `[[epoch]]`.

`self.history` is bound once, in `__init__`, to `tf.Variable(...)`: its
`scatter_nd_update` converts the indices with `tf.convert_to_tensor`, which packs a
scalar int32 tensor as it packs a Python int, so `epoch` may get a scalar int32 slot.
"""

import tensorflow as tf


class Trainer:
    def __init__(self):
        self.weights = tf.Variable(tf.ones([3]))
        self.history = tf.Variable(tf.zeros([4]))

    @tf.function(input_signature=[
        tf.TensorSpec(shape=[3], dtype=tf.float32),
        tf.TensorSpec(shape=[], dtype=tf.int32),
    ])
    def train_step(self, x, epoch):
        loss = tf.reduce_mean(x * self.weights)
        self.history.scatter_nd_update([[epoch]], [loss])
        return loss


def run(trainer, x):
    return [trainer.train_step(x, epoch) for epoch in range(4)]
