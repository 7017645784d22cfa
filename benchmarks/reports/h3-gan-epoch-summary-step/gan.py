"""GAN train step that logs its losses with the Python epoch number as the summary step (rebuilt from tensorflow/tensorflow#32157)."""

import tempfile

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
generator = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(2)])
discriminator = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(8, activation="relu"),
                                     tf.keras.layers.Dense(1)])
writer = tf.summary.create_file_writer(tempfile.mkdtemp(prefix="h3-gan-"))
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(real, noise, epoch):
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise, training=True)
        real_logits = discriminator(real, training=True)
        fake_logits = discriminator(fake, training=True)
        g_loss = bce(tf.ones_like(fake_logits), fake_logits)
        d_loss = bce(tf.ones_like(real_logits), real_logits) + bce(tf.zeros_like(fake_logits), fake_logits)
    for tape, loss, model in ((g_tape, g_loss, generator), (d_tape, d_loss, discriminator)):
        for var, grad in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
            var.assign_sub(0.05 * grad)
    with writer.as_default():
        tf.summary.write("g_loss", g_loss, step=epoch)
        tf.summary.write("d_loss", d_loss, step=epoch)
    return g_loss, d_loss
