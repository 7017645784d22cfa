"""A metric logged from a tf.function whose summary step is the Python loop counter (rebuilt from tensorflow/tensorflow#34481)."""

import json
import tempfile

import numpy as np
import tensorflow as tf

writer = tf.summary.create_file_writer(tempfile.mkdtemp(prefix="h3-summary-"))


@tf.function
def log_metric(values, step):
    metric = tf.reduce_mean(values * values)
    with writer.as_default():
        tf.summary.write("metric", metric, step=step)
    return metric


rng = np.random.default_rng(0)
out = []
for step in range(8):
    values = tf.constant(rng.normal(size=(16,)).astype("float32"))
    out.append(round(float(log_metric(values, step)), 5))
    writer.flush()
print(json.dumps(out))
