import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 50], dtype=tf.float32)])
def predict_with_signature(x):
    return x * 2.0


@tf.function(reduce_retracing=True)
def relaxed(x):
    return x * 2.0


@tf.function
def same_shape(x):
    return x * 2.0


def run(batches, load):
    for n in (16, 32, 64):
        predict_with_signature(tf.random.normal([n, 50]))
        relaxed(tf.random.normal([n, 50]))
        same_shape(tf.random.normal([8, 50]))
    for batch in batches:
        same_shape(batch)
        same_shape(load(batch))


@tf.function
def shaped(x):
    return x


def from_config(shape, shapes):
    shaped(tf.zeros(shape))
    shaped(tf.zeros([2, 3]))
    for s in shapes:
        shaped(tf.ones(s))
