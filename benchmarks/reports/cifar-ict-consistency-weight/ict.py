"""Interpolation-consistency train step with a ramped-up Python float weight (rebuilt from ryancheunggit/tensorflow2_model_zoo#13)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(3)])
optimizer = tf.keras.optimizers.SGD(0.05)


@tf.function
def train_step(x, y, x_unlabeled, w):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        supervised = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
        mixed = 0.5 * (x_unlabeled + tf.reverse(x_unlabeled, axis=[0]))
        target = 0.5 * (tf.nn.softmax(model(x_unlabeled)) + tf.reverse(tf.nn.softmax(model(x_unlabeled)), axis=[0]))
        consistency = tf.reduce_mean(tf.square(tf.nn.softmax(model(mixed)) - tf.stop_gradient(target)))
        loss = supervised + w * consistency
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss
