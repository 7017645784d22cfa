"""A fixed 20-step Python range loop inside a tf.function with a signature: unrolled once, on purpose (rebuilt from tensorflow/tensorflow#40708)."""

import json

import numpy as np
import tensorflow as tf

STEPS = 20


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def compound(x):
    for i in range(STEPS):  # a constant trip count: unrolled once, faster than tf.range here
        x = x * tf.constant(1.01) + 0.001 * i
    return x


rng = np.random.default_rng(0)
out = [round(float(tf.reduce_sum(compound(tf.constant(rng.normal(size=(n,)).astype("float32"))))), 5)
       for n in [10, 100, 10, 1000]]
print(json.dumps(out))
