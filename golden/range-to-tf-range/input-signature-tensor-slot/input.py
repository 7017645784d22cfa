import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32),
                              tf.TensorSpec(shape=[], dtype=tf.int32)])
def decay(x, n):
    for _ in range(n):
        x = x * 0.9
    return x


class Smoother(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
    def smooth(self, x, steps):
        for _ in range(steps):
            x = (x + tf.roll(x, 1, axis=0)) / 2.0
        return x
