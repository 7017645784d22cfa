"""GAN loss whose Python bool flags select the terms (rebuilt from NatLabRockies/sup3r#109)."""

import tensorflow as tf


class Sup3rGan:
    def __init__(self):
        tf.keras.utils.set_random_seed(0)
        self.generator = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])
        self.discriminator = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])

    def calc_loss(self, hi_res_true, low_res, train_gen, train_disc):
        hi_res_gen = self.generator(low_res)
        loss = tf.reduce_mean(tf.square(hi_res_gen - hi_res_true))
        if train_gen:
            loss += 0.1 * tf.reduce_mean(tf.nn.softplus(-self.discriminator(hi_res_gen)))
        if train_disc:
            loss += tf.reduce_mean(tf.nn.softplus(self.discriminator(hi_res_gen)) + tf.nn.softplus(-self.discriminator(hi_res_true)))
        return loss
