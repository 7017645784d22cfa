import tensorflow as tf


@tf.function  # retrace-fix: ignore[RTF003]
def kept_flexible(x):
    return x + 1.0


def also_kept(x):  # retrace-fix: ignore
    return x - 1.0


also_kept_fn = tf.function(also_kept)
