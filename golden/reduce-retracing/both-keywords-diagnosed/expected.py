import tensorflow as tf


@tf.function(experimental_relax_shapes=True, reduce_retracing=False)
def a(x):
    return x
