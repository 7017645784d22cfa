"""Custom training loop with drop_remainder batches and a tensor step counter (rebuilt from tensorflow/models#6980)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(3)])
optimizer = tf.keras.optimizers.SGD(0.1)
optimizer.build(model.trainable_variables)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
step = tf.Variable(0, dtype=tf.int64)
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = loss_fn(labels, logits)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_accuracy.update_state(labels, logits)
    step.assign_add(1)
    return loss


@tf.function
def test_step(images, labels):
    return loss_fn(labels, model(images, training=False))
