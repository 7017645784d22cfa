import keras
from tensorflow import function as tfn
from tensorflow import keras as tfk


@tfn
def run(net: keras.Model, x):
    return net.predict(x)


@tfn(reduce_retracing=True)
def run_tf_keras(net: tfk.Sequential, x):
    return net.predict_on_batch(x)


@tfn
def run_string_annotation(net: "keras.Model", x):
    return net.predict(x)
