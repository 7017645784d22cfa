import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def infer(x):
    return model.predict(x)  # retrace-fix: ignore[RTF002]


@tf.function  # retrace-fix: ignore
def infer_all(x):
    return model.predict(x)


@tf.function
def infer_other_code_suppressed(x):
    return model(x, training=False)  # retrace-fix: ignore[RTF001]
