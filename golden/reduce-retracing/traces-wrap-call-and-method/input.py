import tensorflow as tf


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.train_step = tf.function(self._train_step)

    def _train_step(self, x, y, loss_fn):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, self.model(x))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def evaluate(self, x, y, loss_fn):
        return loss_fn(y, self.model(x))
