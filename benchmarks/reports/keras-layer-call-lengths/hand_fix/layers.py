"""A subclassed Keras layer whose call is a tf.function, fed variable-length inputs (rebuilt from tensorflow/tensorflow#34025)."""

import tensorflow as tf


class PointEncoder(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.dense = tf.keras.layers.Dense(units, activation="tanh")

    @tf.function(reduce_retracing=True)
    def call(self, points):
        return tf.reduce_max(self.dense(points), axis=1)
