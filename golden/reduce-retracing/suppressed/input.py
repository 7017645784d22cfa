import tensorflow as tf


@tf.function(experimental_relax_shapes=True)  # retrace-fix: ignore[RTF004]
def a(x):
    return x
