import tensorflow as tf

from models import build_model


class Predictor:
    def predict(self, x, batch_size=None):
        return x * 2


predictor = Predictor()
model = build_model()
keras_model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


class Runner:
    def __init__(self, net):
        self.net = net

    @tf.function
    def step(self, x):
        a = predictor.predict(x)  # a local class, no Keras model: never a candidate
        b = model.predict(x)  # built in another module: a candidate
        c = self.net.predict(x, verbose=0)  # Keras-only keyword: Keras, a safe fix
        d = keras_model.predict(x, batch_size=32)  # only batch_size blocks: a candidate
        e = keras_model.predict(x, callbacks=[])  # callbacks cannot be kept: never a candidate
        return a + b + c + d + e
