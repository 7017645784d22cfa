import tensorflow as tf


@tf.function
def noisy(x):
    epsilon = tf.random.normal(tf.shape(x), seed=1)  # reparametrization trick
    return x + 0.0 * epsilon + tf.zeros(tf.shape(x))


@tf.function
def like(x, y):
    return tf.reshape(y, tf.shape(x)) + tf.ones(tf.shape(x))
