import tensorflow as tf


@tf.function
def collect(x, n):
    outs = []
    for i in range(n):
        outs.append(x * float(i))
    return tf.stack(outs)
