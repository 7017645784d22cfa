import numpy as np
import tensorflow as tf

probe = np.zeros((1, 5), dtype="float32")


def repeated_trials(seeds, features, targets):
    # every trial trains a model of its own and asks it once: one predict per model is no per-step cost
    scores = []
    for seed in seeds:
        tf.keras.utils.set_random_seed(seed)
        net = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
        net.compile(loss="mse", optimizer="sgd")
        net.fit(features, targets, epochs=2, verbose=0)
        scores.append(float(net.predict(probe, verbose=0)[0, 0]))
    return scores


def while_trials(count):
    outputs = []
    while len(outputs) < count:
        net = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(2)])
        outputs.append(net.predict(probe, verbose=0))
    return outputs


class Sweep:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])

    def candidate(self, width):
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(width),
                                          tf.keras.layers.Dense(1)])
        return self.model.predict(probe, verbose=0)


def sweep(widths):
    search = Sweep()
    found = []
    for width in widths:
        found.append(search.candidate(width))
    return found


def near_miss_inner_loop(seeds, batches):
    # built once per trial, but asked once per batch: the inner loop pays predict's setup every step
    outputs = []
    for seed in seeds:
        net = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
        for batch in batches:
            outputs.append(net.predict(batch, verbose=0))
    return outputs


def near_miss_asked_twice(seeds, first, second):
    # a new model each iteration, but asked twice in it: the second predict repeats the setup
    outputs = []
    for seed in seeds:
        net = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
        outputs.append(net.predict(first, verbose=0))
        outputs.append(net.predict(second, verbose=0))
    return outputs


def near_miss_built_before_the_loop(batches):
    net = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1)])
    return [net.predict(batch, verbose=0) for batch in batches]
