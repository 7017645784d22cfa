import tensorflow as tf


@tf.function
def step(x, training):
    return x * (2.0 if training else 1.0)


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
def signed(x, n):
    return x * tf.cast(n, tf.float32)


@tf.function
def scaled(x, k):
    return x * k


def fit(x, batches):
    for batch in batches:
        step(batch, True)
        step(batch, False)
        scaled(batch, 3)
    for n in range(10):
        signed(x, n)
        scaled(x, tf.constant(n))
    scaled(x, 3)
