import tensorflow as tf


def train(model, other, x, y, schedule):
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")  # not in a loop
    for lr in schedule:
        model.fit(x, y, verbose=0)
    for lr in schedule:
        other.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse")  # never trained in the loop
        model.fit(x, y, verbose=0)
    for lr in schedule:
        model.compile(optimizer=tf.keras.optimizers.SGD(lr), loss="mse")
        print(model.predict(x))  # compiles, but does not train here
