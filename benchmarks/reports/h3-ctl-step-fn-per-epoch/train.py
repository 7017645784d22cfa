"""Custom training loop whose train_epoch defines its tf.function step_fn at every call (rebuilt from keras-team/tf-keras#254)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(6, activation="relu"),
                             tf.keras.layers.Dense(1)])


def train_epoch(dataset, lr):
    @tf.function
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        for var, grad in zip(model.trainable_variables, grads):
            var.assign_sub(lr * grad)
        return loss

    total = 0.0
    for x, y in dataset:
        total += float(step_fn(x, y))
    return total
