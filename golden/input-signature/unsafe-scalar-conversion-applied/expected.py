import tensorflow as tf


@tf.function(input_signature=[
    tf.TensorSpec(shape=[2, 3], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.int32),
])
def tile_rows(x, repeats):
    return tf.tile(x, [repeats, 1])
