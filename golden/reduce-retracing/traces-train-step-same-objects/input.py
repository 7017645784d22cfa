"""Seed 003, Example 1: the same model/optimizer/loss objects, batch sizes 10, 20, 10, 30."""
import tensorflow as tf


@tf.function
def train_step(x, y, model, optimizer, loss_fn):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = loss_fn(y, logits)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss
