import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])


@tf.function
def infer(x):
    return model.predict(x)


@tf.function(jit_compile=False)
def infer_quiet(x):
    y = model.predict(x, verbose=0)
    return y * 2.0
