import tensorflow as tf

layers = [tf.keras.layers.Dense(4) for _ in range(3)]
for layer in layers:
    layer.build((None, 4))


@tf.function
def apply_first(x, n):
    for i in range(n):
        x = layers[i](x)
    return x


def main(x):
    return [apply_first(x, n) for n in (1, 2, 3)]
