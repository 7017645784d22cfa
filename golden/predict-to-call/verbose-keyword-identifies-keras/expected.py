import tensorflow as tf


@tf.function
def predict_with_retracing(model, X):
    return model(X, training=False)  # Keras-only keyword: the receiver is a Keras model


@tf.function
def predict_keyword_input(model, X):
    return model(X, training=False)
