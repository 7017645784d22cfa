import tensorflow as tf


@tf.function
def train_step(x, model, optimizer):
    batch = x.shape.as_list()[0]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x)) / batch
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
