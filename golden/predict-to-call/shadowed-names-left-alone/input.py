import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def infer(model, x):
    # `model` here is the parameter, not the Keras model above
    return model.predict(x)


def helper(tf, x):
    @tf.function
    def inner(y):
        return model.predict(y)

    return inner(x)
