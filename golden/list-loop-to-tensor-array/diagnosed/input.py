import tensorflow as tf

layers = [tf.keras.layers.Dense(3) for _ in range(4)]
dense = tf.keras.layers.Dense(3)


@tf.function
def indexes_python_list(x, depth):
    outputs = []
    for i in range(depth):
        outputs.append(layers[i](x))
    return tf.stack(outputs)


@tf.function
def appends_conditionally(x, n):
    kept = []
    for i in range(n):
        if i % 2 == 0:
            kept.append(x)
    return tf.stack(kept)


@tf.function
def reads_the_list(x, n):
    outputs = []
    for i in range(n):
        outputs.append(x * 2.0)
    return tf.stack(outputs) / len(outputs)


@tf.function
def strided(x, n):
    outputs = []
    for i in range(0, n, 2):
        outputs.append(x)
    return tf.stack(outputs)


@tf.function
def concat_axis_one(x, n):
    outputs = []
    for i in range(n):
        outputs.append(x)
    return tf.concat(outputs, axis=1)


@tf.function
def unknown_dtype(x, n):
    outputs = []
    for i in range(n):
        outputs.append(dense(x))
    return tf.stack(outputs)


def main(x):
    for n in (2, 4):
        indexes_python_list(x, n)
        appends_conditionally(x, n)
        reads_the_list(x, n)
        strided(x, n)
        concat_axis_one(x, n)
        unknown_dtype(x, n)
