import tensorflow as tf


def normalize(x):
    return (x - tf.reduce_mean(x)) / (tf.math.reduce_std(x) + 1e-6)


normalize_fn = tf.function(normalize)


def _squared_error(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


loss_fn = tf.function(autograph=False)(_squared_error)


class Runner:
    def __init__(self):
        self.step = tf.function(self._step)

    def _step(self, x):
        return x * 2.0
