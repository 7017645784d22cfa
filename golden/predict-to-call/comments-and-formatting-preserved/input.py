import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def infer(x):
    # keep this comment
    out = model.predict(
        x,  # the batch
        verbose=0,
    )
    return out  # and this one
