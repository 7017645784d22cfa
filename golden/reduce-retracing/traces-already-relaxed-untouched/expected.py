import tensorflow as tf


@tf.function(reduce_retracing=True)
def step(x, model):
    return model(x)


@tf.function(reduce_retracing=True)
def old_step(x, model):
    return model(x)
