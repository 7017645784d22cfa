"""GAN with separate discriminator and generator steps; the last real batch is short and so is its noise batch (rebuilt from martinarjovsky/WassersteinGAN#8)."""

import tensorflow as tf

CODINGS = 4
tf.keras.utils.set_random_seed(0)
generator = tf.keras.Sequential([tf.keras.Input(shape=(CODINGS,)), tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(2)])
critic = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)])
d_optimizer = tf.keras.optimizers.RMSprop(5e-3)
g_optimizer = tf.keras.optimizers.RMSprop(5e-3)
d_optimizer.build(critic.trainable_variables)
g_optimizer.build(generator.trainable_variables)


@tf.function
def critic_step(real, noise):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(critic(generator(noise))) - tf.reduce_mean(critic(real))
    gradients = tape.gradient(loss, critic.trainable_variables)
    d_optimizer.apply_gradients(zip(gradients, critic.trainable_variables))
    for w in critic.trainable_variables:
        w.assign(tf.clip_by_value(w, -0.1, 0.1))
    return loss


@tf.function
def generator_step(noise):
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(critic(generator(noise)))
    gradients = tape.gradient(loss, generator.trainable_variables)
    g_optimizer.apply_gradients(zip(gradients, generator.trainable_variables))
    return loss
