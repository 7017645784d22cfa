"""Cross-validation whose training function defines its tf.function steps for each fold's new model (rebuilt from sofiabroome/painface-recognition#4)."""

import tensorflow as tf


def build_model(seed):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(8, activation="relu"),
                                tf.keras.layers.Dense(1)])


def video_level_train(model, train_data, val_data, epochs=3):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        for var, grad in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
            var.assign_sub(0.05 * grad)
        return loss

    @tf.function
    def validation_step(x, y):
        return tf.reduce_mean(tf.square(model(x, training=False) - y))

    for epoch in range(epochs):
        for x, y in train_data:
            train_step(x, y)
    return float(tf.add_n([validation_step(x, y) for x, y in val_data]))
