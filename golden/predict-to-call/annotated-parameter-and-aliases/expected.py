import keras
from tensorflow import function as tfn
from tensorflow import keras as tfk


@tfn
def run(net: keras.Model, x):
    return net(x, training=False)


@tfn(reduce_retracing=True)
def run_tf_keras(net: tfk.Sequential, x):
    return net(x, training=False)


@tfn
def run_string_annotation(net: "keras.Model", x):
    return net(x, training=False)
