"""A Python float that varies next to a model argument, and a batch size that varies too.

RTF005 converts the float at the call site; then, per float value, the batch sizes are
the only difference left, and reduce_retracing=True (RTF004, proven on the converted
traces) folds them: 6 traces become 2.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])


@tf.function(reduce_retracing=True)
def weighted_loss(model, x, weight):
    return weight * tf.reduce_mean(tf.square(model(x)))


def run(batches, weights):
    return [weighted_loss(model, x, tf.constant(w, dtype=tf.float32)) for w in weights for x in batches]
