"""pix2pix-style train step logging summaries at step=epoch (rebuilt from solaris33/deep-learning-tensorflow-book-code#8)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
generator = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(8, activation="tanh")])
optimizer = tf.keras.optimizers.Adam(2e-3)
summary_writer = tf.summary.create_file_writer("logs")


@tf.function
def train_step(input_image, target, epoch):
    with tf.GradientTape() as tape:
        gen_output = generator(input_image, training=True)
        l1_loss = tf.reduce_mean(tf.abs(target - gen_output))
    gradients = tape.gradient(l1_loss, generator.trainable_variables)
    optimizer.apply_gradients(zip(gradients, generator.trainable_variables))
    with summary_writer.as_default():
        tf.summary.scalar("gen_l1_loss", l1_loss, step=epoch)
    return l1_loss
