import tensorflow as tf


def train(model, x, y, schedule):
    for lr in schedule:
        model.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse")  # retrace-fix: ignore[RTF010]
        model.fit(x, y, verbose=0)
