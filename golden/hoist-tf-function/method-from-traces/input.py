import tensorflow as tf


class PeakModel:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(10,)), tf.keras.layers.Dense(4)])
        self.scale = 2.0

    def run_predictions(self, batches):
        @tf.function
        def predict_step(inputs):
            return self.model(inputs, training=False) * self.scale

        return [predict_step(b) for b in batches]
