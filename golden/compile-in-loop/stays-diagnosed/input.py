import tensorflow as tf
from tensorflow import keras


def train(model, x, y, schedule, losses):
    for epoch, lr in enumerate(schedule):
        model.compile(optimizer="adam", loss="mse")
        model.fit(x, y, verbose=0)
    for epoch, lr in enumerate(schedule):
        optimizer = keras.optimizers.Adam(lr)
        model.compile(optimizer, loss="mse")
        model.train_on_batch(x, y)
    for epoch, lr in enumerate(schedule):
        model.compile(optimizer=keras.optimizers.Adam(lr), loss=losses[epoch])
        model.fit(x, y, verbose=0)
    for epoch, lr in enumerate(schedule):
        model.compile(keras.optimizers.Adam(learning_rate=keras.optimizers.schedules.ExponentialDecay(lr, 10, 0.9)))
        model.fit(x, y, verbose=0)
