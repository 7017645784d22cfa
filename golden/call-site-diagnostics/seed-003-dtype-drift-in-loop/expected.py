import numpy as np
import tensorflow as tf


@tf.function
def train_step_2(x, y, model, optimizer, loss_fn):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = loss_fn(y, logits)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


model = tf.keras.layers.Dense(10)
optimizer = tf.keras.optimizers.Adam()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
batch_size = 32

for i in range(2):
    if i == 0:
        x = tf.random.normal((batch_size, 5), dtype=tf.float32)
    else:
        x = tf.random.normal((batch_size, 5), dtype=tf.float64)
    y = np.random.randint(0, 10, size=batch_size)
    loss = train_step_2(x, y, model, optimizer, loss_fn)
    print(f"Iteration: {i}, Loss: {loss}")

for i in range(2):
    x = tf.random.normal((batch_size, 5), dtype=tf.float32)
    y = np.random.randint(0, 10, size=batch_size)
    loss = train_step_2(x, y, model, optimizer, loss_fn)
