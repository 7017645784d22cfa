import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


@tf.function
def infer(x):
    # keep this comment
    out = model(
        x,  # the batch
        training=False,
    )
    return out  # and this one
