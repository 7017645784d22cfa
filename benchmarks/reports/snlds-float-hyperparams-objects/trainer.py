"""Train step taking model, optimizer and annealed Python floats (rebuilt from yerkojahve/Meta-Pseudo-label#1, snlds lorenz trainer)."""

import tensorflow as tf


@tf.function
def train_step(batch, model, optimizer, learning_rate, temperature, xent_coef):
    optimizer.learning_rate.assign(learning_rate)
    x, y = batch
    with tf.GradientTape() as tape:
        logits = model(x) / temperature
        mse = tf.reduce_mean(tf.square(logits[:, 0] - y))
        entropy = -tf.reduce_mean(tf.reduce_sum(tf.nn.softmax(logits) * tf.nn.log_softmax(logits), axis=1))
        loss = mse - xent_coef * entropy
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
