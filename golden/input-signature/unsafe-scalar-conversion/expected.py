import tensorflow as tf


@tf.function
def scaled_features(x, factor):
    h = tf.nn.relu(x)
    # `h` has no recorded dtype: a float32 `factor` tensor is only right if `h` is float32
    return h * factor


@tf.function
def tile_rows(x, repeats):
    # TensorFlow converts `repeats` to a tensor here anyway: safe
    return tf.tile(x, [repeats, 1])
