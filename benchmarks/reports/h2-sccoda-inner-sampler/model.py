"""Compositional model whose sampling() defines its tf.function on every call (rebuilt from theislab/scCODA#13)."""

import tensorflow as tf


class CompositionalModel:
    def __init__(self, counts):
        self.counts = tf.constant(counts, tf.float32)
        self.totals = tf.reduce_sum(self.counts, axis=1, keepdims=True)

    def log_prob(self, alpha):
        probs = tf.nn.softmax(alpha)
        return tf.reduce_sum(self.counts * tf.math.log(probs)) - 0.5 * tf.reduce_sum(tf.square(alpha))

    def sampling(self, init, num_steps, step_size):
        @tf.function
        def sample_mcmc(state, step_size):
            def body(i, x):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    lp = self.log_prob(x)
                return i + 1, x + step_size * tape.gradient(lp, x)

            _, final = tf.while_loop(lambda i, x: i < num_steps, body, (tf.constant(0), state))
            return final, self.log_prob(final)

        return sample_mcmc(init, tf.constant(step_size, tf.float32))
