import numpy as np
import tensorflow as tf

inputs = tf.keras.Input(shape=(3,))
hidden = tf.keras.layers.Dense(4)(inputs)
two_heads = tf.keras.Model(inputs, [tf.keras.layers.Dense(1)(hidden), tf.keras.layers.Dense(2)(hidden)])
seq = tf.keras.Sequential([tf.keras.layers.Dense(1)])
loaded = tf.keras.models.load_model("model.keras")


class Custom(tf.keras.Model):
    def call(self, x):
        return x


custom = Custom()


class Predictor:
    def predict(self, x):
        return x


predictor = Predictor()


def once(x):
    return seq.predict(x, verbose=0)


def loops(batches, dataset):
    out = []
    for b in batches:
        out.append(two_heads.predict(b, verbose=0))
        out.append(loaded.predict(b))
        out.append(custom.predict(b))
        out.append(predictor.predict(b))
        out.append(seq.predict(b, batch_size=8))
        out.append(seq.predict(dataset.batch(4)))
    for p in seq.predict(np.ones([4, 3])):
        out.append(p)
    return out
