"""An epoch loop compiled with tf.function that receives the model's step as a bound method (rebuilt from tensorflow/tensorflow#31175)."""

import json

import numpy as np
import tensorflow as tf


class Regressor(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.zeros([3, 1]))
        self.b = tf.Variable(0.0)

    def step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, self.w) + self.b - y))
        dw, db = tape.gradient(loss, [self.w, self.b])
        self.w.assign_sub(0.1 * dw)
        self.b.assign_sub(0.1 * db)
        return loss


@tf.function
def run_epoch(step_fn, xs, ys):
    total = tf.constant(0.0)
    for i in tf.range(tf.shape(xs)[0]):
        total += step_fn(xs[i], ys[i])
    return total / tf.cast(tf.shape(xs)[0], tf.float32)


rng = np.random.default_rng(0)
xs = tf.constant(rng.normal(size=(4, 8, 3)).astype("float32"))
ys = tf.reduce_sum(xs, axis=-1, keepdims=True) * 0.5 + 0.1
model = Regressor()
losses = []
for epoch in range(5):
    losses.append(round(float(run_epoch(model.step, xs, ys)), 6))  # model.step is a new object each time
print(json.dumps(losses))
