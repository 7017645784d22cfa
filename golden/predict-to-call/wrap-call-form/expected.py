import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def _infer(x):
    return model(x, training=False)


infer = tf.function(_infer)
infer_relaxed = tf.function(reduce_retracing=True)(_infer)
