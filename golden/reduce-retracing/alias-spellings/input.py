import tensorflow
import tensorflow.compat.v2 as tf2
from tensorflow import function as tfn


@tensorflow.function(experimental_relax_shapes=True)
def a(x):
    return x


@tf2.function(
    experimental_relax_shapes=True,  # shapes vary per batch
    autograph=False,
)
def b(x):
    return x


@tfn(experimental_relax_shapes=True)
def c(x):
    return x
