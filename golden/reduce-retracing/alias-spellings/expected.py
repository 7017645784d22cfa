import tensorflow
import tensorflow.compat.v2 as tf2
from tensorflow import function as tfn


@tensorflow.function(reduce_retracing=True)
def a(x):
    return x


@tf2.function(
    reduce_retracing=True,  # shapes vary per batch
    autograph=False,
)
def b(x):
    return x


@tfn(reduce_retracing=True)
def c(x):
    return x
