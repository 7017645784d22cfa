import tensorflow as tf


def build(seed):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])


def train_fold(net, batches, rate=0.05):
    # the caller (drive.py) passes each fold's new model: one trace per fold is inherent
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(x, training=True) - y))
        for var, grad in zip(net.trainable_variables, tape.gradient(loss, net.trainable_variables)):
            var.assign_sub(rate * grad)
        return loss

    for x, y in batches:
        step(x, y)
    return float(tf.add_n([tf.reduce_mean(tf.square(net(x) - y)) for x, y in batches]))


def train_epoch(net, batches, rate=0.05):
    # near miss: the caller passes the same model every epoch, so each epoch's new function retraces
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(x, training=True) - y))
        for var, grad in zip(net.trainable_variables, tape.gradient(loss, net.trainable_variables)):
            var.assign_sub(rate * grad)
        return loss

    return [round(float(step(x, y)), 5) for x, y in batches]
