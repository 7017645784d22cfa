"""A tf.function train step fed by a dataset batched without drop_remainder: the last batch of each epoch is shorter (rebuilt from tensorflow/tensorflow#44578)."""

import json

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
features = rng.normal(size=(100, 5)).astype("float32")
labels = (features.sum(axis=1, keepdims=True) > 0).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(32)  # 32, 32, 32, 4
w = tf.Variable(tf.zeros([5, 1]))
b = tf.Variable(0.0)


@tf.function(input_signature=[tf.TensorSpec([None, 5], tf.float32), tf.TensorSpec([None, 1], tf.float32)])
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(0.5 * dw)
    b.assign_sub(0.5 * db)
    return loss


losses = []
for epoch in range(3):
    for x, y in dataset:
        losses.append(round(float(train_step(x, y)), 5))
print(json.dumps(losses))
