import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def _infer(x):
    return model.predict(x)


infer = tf.function(_infer)
infer_relaxed = tf.function(reduce_retracing=True)(_infer)
