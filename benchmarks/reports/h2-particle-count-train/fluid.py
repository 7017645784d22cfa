"""Per-particle train step over scenes with different particle counts (rebuilt from isl-org/DeepLagrangianFluids#28)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(16, activation="tanh"),
    tf.keras.layers.Dense(3),
])
optimizer = tf.keras.optimizers.SGD(0.05)
optimizer.build(model.trainable_variables)


@tf.function
def train(positions, velocities):
    with tf.GradientTape() as tape:
        predicted = model(positions)
        loss = tf.reduce_mean(tf.square(predicted - velocities))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss
