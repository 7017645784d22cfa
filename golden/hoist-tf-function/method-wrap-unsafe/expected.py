import tensorflow as tf


class Acquisition:
    def __init__(self):
        self.best = 0.0

    def update(self, best):
        self.best = best

    def score(self, x):
        return tf.reduce_max(x - self.best)

    def evaluate(self, x):
        if getattr(self, "_tf_score", None) is None:
            self._tf_score = tf.function(self.score)
        return self._tf_score(x)


class Layerish(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(1.0)

    def forward(self, x):
        return self.w * x

    def __call__(self, x):
        return self.run(x)

    def run(self, x):
        if getattr(self, "_tf_forward", None) is None:
            self._tf_forward = tf.function(self.forward)
        return self._tf_forward(x)
