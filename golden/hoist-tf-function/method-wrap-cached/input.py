import tensorflow as tf


class Minimizer:
    """Gradient steps on a loss rebuilt as a tf.function at every step."""

    def __init__(self, target):
        self.target = tf.constant(target)
        self.x = tf.Variable([0.0, 0.0])

    def loss(self):
        return tf.reduce_sum(tf.square(self.x - self.target))

    def step(self, lr):
        loss_fn = tf.function(self.loss)
        with tf.GradientTape() as tape:
            value = loss_fn()
        self.x.assign_sub(lr * tape.gradient(value, self.x))
        return value

    def score(self):
        # evaluated once per step too
        return tf.function(self.loss, reduce_retracing=True)()


def main(steps):
    minimizer = Minimizer([1.0, 2.0])
    return [(minimizer.step(0.1), minimizer.score()) for _ in range(steps)]


class Acquisition:
    """An acquisition rebuilt as tf.function(lambda: ...) at every optimisation step."""

    def __init__(self, scale):
        self.scale = tf.constant(scale)

    def value(self, x):
        return tf.reduce_max(x * self.scale)

    def optimise(self, x):
        return tf.function(lambda: self.value(x))()


def acquire(points):
    acquisition = Acquisition(2.0)
    return [acquisition.optimise(p) for p in points]
