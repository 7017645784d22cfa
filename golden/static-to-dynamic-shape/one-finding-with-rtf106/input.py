import tensorflow as tf


@tf.function(reduce_retracing=True)
def flatten(x):
    rows = x.shape[0]  # a Python int: RTF106's
    scale = 2.0 if rows is not None and rows > 2 else 1.0
    return tf.reshape(x, [x.shape[0], -1]) * scale  # RTF008's: one finding


@tf.function(reduce_retracing=True)
def zeros_like_rows(x):
    height, width = x.shape.as_list()  # Python ints: RTF106's
    return tf.zeros(x.shape.as_list()) + height * width  # RTF008's: one finding
