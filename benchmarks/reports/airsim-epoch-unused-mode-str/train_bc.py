"""Behaviour-cloning train step with an unused epoch argument and a mode string (rebuilt from microsoft/AirSim-Drone-Racing-VAE-Imitation#10)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
encoder = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(3)])
bc_model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
optimizer = tf.keras.optimizers.Adam(1e-2)
train_loss = tf.keras.metrics.Mean()


@tf.function
def train(images, labels, epoch, training_mode):
    with tf.GradientTape() as tape:
        if training_mode == "full":
            predictions = bc_model(images[:, :3])
        elif training_mode == "latent":
            predictions = bc_model(encoder(images))
        loss = tf.reduce_mean(tf.square(labels - predictions))
    gradients = tape.gradient(loss, bc_model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, bc_model.trainable_variables))
    train_loss(loss)
