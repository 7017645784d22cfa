import tensorflow as tf


@tf.function(reduce_retracing=True)
def step(x, model):
    return model(x)


@tf.function(experimental_relax_shapes=True)
def old_step(x, model):
    return model(x)
