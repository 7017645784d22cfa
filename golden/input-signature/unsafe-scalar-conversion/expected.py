import tensorflow as tf


@tf.function
def scaled_features(x, factor):
    h = tf.nn.relu(x)
    # `h` has no recorded dtype: a float32 `factor` tensor is only right if `h` is float32
    return h * factor


@tf.function(input_signature=[
    tf.TensorSpec(shape=[2, 3], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.int32),
])
def tile_rows(x, repeats):
    # TensorFlow converts `repeats` to a tensor here anyway: safe
    return tf.tile(x, [repeats, 1])
