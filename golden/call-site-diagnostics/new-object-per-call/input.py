import tensorflow as tf


class Config:
    def __init__(self, scale):
        self.scale = scale


@tf.function
def apply(x, cfg):
    return x * cfg.scale


@tf.function
def train_step(x, model, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def search(x, scales):
    for scale in scales:
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        train_step(x, model, tf.keras.optimizers.SGD(scale))
    for scale in scales:
        apply(x, Config(scale))
