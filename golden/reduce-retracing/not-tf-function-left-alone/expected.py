import tensorflow as tf
import mylib


@mylib.function(experimental_relax_shapes=True)
def a(x):
    return x


def build(tf):
    return tf.function(lambda x: x, experimental_relax_shapes=True)


@tf.function(reduce_retracing=True)
def already_new_spelling(x):
    return x
