"""`dropout` is 0.1 in every call, has no default, and the body branches on it in Python: it
blocks an input_signature, and the finding names it; reduce_retracing still folds the batch sizes."""
import tensorflow as tf


@tf.function
def regularized(x, dropout):
    if dropout > 0:
        x = x * (1.0 - dropout)
    return tf.reduce_sum(x, axis=1)
