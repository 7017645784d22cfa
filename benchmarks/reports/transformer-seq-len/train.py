"""Seq2seq train step on batches padded to the batch's longest sequence (rebuilt from tensorflow/tensorflow#49151)."""

import tensorflow as tf

embedding = tf.keras.layers.Embedding(50, 8)
projection = tf.keras.layers.Dense(50)
optimizer = tf.keras.optimizers.SGD(0.1)
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(inp, tar):
    with tf.GradientTape() as tape:
        logits = projection(embedding(inp))
        loss = loss_object(tar, logits)
    variables = embedding.trainable_variables + projection.trainable_variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss
