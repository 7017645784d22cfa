import tensorflow as tf


@tf.function
def noisy(x):
    epsilon = tf.random.normal(x.shape, seed=1)  # reparametrization trick
    return x + 0.0 * epsilon + tf.zeros(x.get_shape())


@tf.function
def like(x, y):
    return tf.reshape(y, x.shape.as_list()) + tf.ones(x.shape)
