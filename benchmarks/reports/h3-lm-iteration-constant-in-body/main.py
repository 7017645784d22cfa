"""Levenberg-Marquardt iterations whose damping schedule converts the Python iteration number inside the tf.function (rebuilt from fabiodimarco/tf-levenberg-marquardt#17)."""

import json

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
x = tf.constant(rng.uniform(-1.0, 1.0, size=(32,)).astype("float32"))
y = 1.5 * x - 0.3 + tf.constant(rng.normal(scale=0.05, size=(32,)).astype("float32"))
w = tf.Variable([0.0, 0.0])


@tf.function
def lm_step(x, y, i):
    it = tf.constant(i, dtype=tf.float32)  # the iteration number, converted in the body
    damping = 1e-1 * tf.pow(0.5, it)
    jac = tf.stack([x, tf.ones_like(x)], axis=1)
    residual = y - (w[0] * x + w[1])
    lhs = tf.matmul(jac, jac, transpose_a=True) + damping * tf.eye(2)
    rhs = tf.linalg.matvec(jac, residual, transpose_a=True)
    w.assign_add(tf.linalg.solve(lhs, rhs[:, tf.newaxis])[:, 0])
    return tf.reduce_mean(tf.square(residual))


losses = [round(float(lm_step(x, y, i)), 6) for i in range(6)]
print(json.dumps({"losses": losses, "w": [round(float(v), 5) for v in w.numpy()]}))
