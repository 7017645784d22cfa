import tensorflow as tf

dense = tf.keras.layers.Dense(3)
layers = [tf.keras.layers.Dense(3) for _ in range(4)]


@tf.function
def unknown_dtype(x, n):
    outputs = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        outputs = outputs.write(i, dense(x))
    return outputs.stack()


@tf.function
def indexes_python_list(x, depth):
    outputs = []
    for i in range(depth):
        outputs.append(layers[i](x))
    return tf.stack(outputs)


def main(x):
    for n in (2, 4):
        unknown_dtype(x, tf.constant(n))
        indexes_python_list(x, n)
