"""A tf.function method with experimental_relax_shapes called on vectors of a new length each time (rebuilt from tensorflow/tensorflow#34905)."""

import json

import numpy as np
import tensorflow as tf


class Accumulator:
    def __init__(self):
        self.scale = tf.Variable(0.5)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def weighted_sum(self, data):
        return self.scale * tf.reduce_sum(data * data)


acc = Accumulator()
rng = np.random.default_rng(0)
out = [round(float(acc.weighted_sum(rng.normal(size=(n,)).astype("float32"))), 5) for n in range(1, 9)]
print(json.dumps(out))
