import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = x.sum(axis=1, keepdims=True)
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    losses = []

    compiled_once = False
    # a smaller step each epoch
    for lr in [0.1, 0.05, 0.01]:
        if not compiled_once:
            model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=lr), loss="mse")  # re-compiled
            compiled_once = True
        else:
            model.optimizer.learning_rate.assign(lr)
        history = model.fit(x, y, epochs=1, batch_size=16, verbose=0, shuffle=False)
        losses.append(history.history["loss"][0])
    return losses
