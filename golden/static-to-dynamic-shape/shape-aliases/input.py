import tensorflow as tf


def leaf_l1_loss(x, y):
    xshape = x.get_shape().as_list()
    return tf.reduce_mean(tf.reshape(tf.abs(x - y), [xshape[0], -1]), axis=1)


@tf.function
def step(x, y):
    shape = x.shape
    if shape[1] > 2:
        y = y * 2.0
    return leaf_l1_loss(x, y) + tf.reduce_sum(tf.zeros([shape[0], 3]))
