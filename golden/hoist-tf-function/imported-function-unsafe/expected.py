import tensorflow as tf
from tensorflow import math as tfmath


_tf_reduce_euclidean_norm = tf.function(tfmath.reduce_euclidean_norm)


def norms(batches):
    results = []
    for batch in batches:
        wrapper = _tf_reduce_euclidean_norm
        results.append(wrapper(batch))
    return results


def per_model(models, x):
    # a different function object per model: it stays
    return [tf.function(model.call)(x) for model in models]


_tf_reduce_std = tf.function(tf.math.reduce_std)


def spreads(batches):
    return [_tf_reduce_std(b) for b in batches]
