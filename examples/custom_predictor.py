"""Not Keras: a project-local `predict` method inside a tf.function must be left alone."""

import tensorflow as tf


class LinearPredictor:
    def __init__(self, weights):
        self.weights = weights

    def predict(self, x):
        return tf.matmul(x, self.weights)


predictor = LinearPredictor(tf.ones([3, 1]))


@tf.function
def score(x):
    return predictor.predict(x)


if __name__ == "__main__":
    print(score(tf.ones([2, 3])).numpy().tolist())
