"""A train step with an epoch number it never uses next to a constant mode string.

Rebuilt from the pattern of microsoft/AirSim-Drone-Racing-VAE-Imitation#10: one trace
per (epoch, batch shape); the mode string must stay a Python value (it picks a branch).
"""

import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(3)])
head = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
optimizer = tf.keras.optimizers.SGD(0.05)


@tf.function
def train(images, labels, epoch, mode):
    with tf.GradientTape() as tape:
        if mode == "latent":
            predictions = head(encoder(images))
        else:
            predictions = head(images[:, :3])
        loss = tf.reduce_mean(tf.square(labels - predictions))
    variables = head.trainable_variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


def fit(dataset, epochs, mode="latent"):
    losses = []
    for epoch in range(epochs):
        for images, labels in dataset:
            losses.append(float(train(images, labels, epoch, mode)))
    return losses
