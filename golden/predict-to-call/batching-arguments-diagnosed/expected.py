import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
dataset = tf.data.Dataset.from_tensor_slices(tf.zeros([8, 3])).batch(4)


@tf.function
def infer(x):
    a = model.predict(x, batch_size=32)
    b = model.predict(tf.data.Dataset.from_tensor_slices(x).batch(2))
    c = model.predict(x, 4)
    return a, b, c
