"""A feature-scaling tf.function fed float32 tensors by one caller and float64 NumPy arrays by another (rebuilt from a tf.function tracing practice page: a new dtype is a new trace)."""

import json

import numpy as np
import tensorflow as tf

mean = tf.constant(0.5)
scale = tf.constant(2.0)


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def standardize(x):
    return tf.reduce_sum(tf.square((x - mean) * scale))


rng = np.random.default_rng(0)
out = []
for n in [16, 32, 16, 32]:
    from_pipeline = tf.constant(rng.normal(size=(n,)).astype("float32"))  # float32 tensors from tf.data
    from_pandas = rng.normal(size=(n,))  # NumPy's default float64
    out.append(round(float(standardize(from_pipeline)), 4))
    out.append(round(float(standardize(from_pandas.astype(np.float32))), 4))
print(json.dumps(out))
