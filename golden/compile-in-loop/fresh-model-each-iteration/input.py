import tensorflow as tf


def cross_validate(folds):
    scores = []
    for x, y in folds:
        # a new model per fold: compiling it is required, nothing is traced again for nothing
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")
        model.fit(x, y, epochs=2, verbose=0)
        scores.append(model.evaluate(x, y, verbose=0))
    return scores
