"""pix2pix-style train step logging its loss at index `epoch` (rebuilt from solaris33/deep-learning-tensorflow-book-code#8).

The original logs with tf.summary.scalar(..., step=epoch); TensorBoard is not a dependency here,
so the loss is written into a history variable at the same step index.
"""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
generator = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(8, activation="tanh")])
optimizer = tf.keras.optimizers.Adam(2e-3)
history = tf.Variable(tf.zeros([5]))


@tf.function
def train_step(input_image, target, epoch):
    with tf.GradientTape() as tape:
        gen_output = generator(input_image, training=True)
        l1_loss = tf.reduce_mean(tf.abs(target - gen_output))
    gradients = tape.gradient(l1_loss, generator.trainable_variables)
    optimizer.apply_gradients(zip(gradients, generator.trainable_variables))
    history.scatter_nd_update([[epoch]], [l1_loss])
    return l1_loss
