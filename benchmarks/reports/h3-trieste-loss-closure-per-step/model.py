"""GP model wrapper that compiles its training loss afresh at every Bayesian-optimisation step (rebuilt from secondmind-labs/trieste#553)."""

import numpy as np
import tensorflow as tf


class GaussianProcess:
    def __init__(self, x, y):
        self.x = tf.Variable(x, shape=tf.TensorShape([None, 1]))
        self.y = tf.Variable(y, shape=tf.TensorShape([None, 1]))
        self.log_lengthscale = tf.Variable(0.0)
        self.log_variance = tf.Variable(0.0)

    def training_loss(self):
        lengthscale = tf.exp(self.log_lengthscale)
        sq = tf.square(self.x - tf.transpose(self.x)) / tf.square(lengthscale)
        n = tf.shape(self.x)[0]
        kernel = tf.exp(self.log_variance) * tf.exp(-0.5 * sq) + 0.1 * tf.eye(n)
        chol = tf.linalg.cholesky(kernel)
        alpha = tf.linalg.cholesky_solve(chol, self.y)
        return 0.5 * tf.reduce_sum(self.y * alpha) + tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))

    def update(self, x, y):
        self.x.assign(x)
        self.y.assign(y)

    def optimize(self, steps=5):
        loss_fn = tf.function(self.training_loss)  # a new tf.function at every optimisation
        params = [self.log_lengthscale, self.log_variance]
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = loss_fn()
            for param, grad in zip(params, tape.gradient(loss, params)):
                param.assign_sub(0.02 * grad)
        return float(loss)
