import tensorflow as tf

dense = tf.keras.layers.Dense(3)
layers = [tf.keras.layers.Dense(3) for _ in range(4)]


@tf.function
def unknown_dtype(x, n):
    outputs = []
    for i in range(n):
        outputs.append(dense(x))
    return tf.stack(outputs)


@tf.function
def indexes_python_list(x, depth):
    outputs = []
    for i in range(depth):
        outputs.append(layers[i](x))
    return tf.stack(outputs)


def main(x):
    for n in (2, 4):
        unknown_dtype(x, n)
        indexes_python_list(x, n)
