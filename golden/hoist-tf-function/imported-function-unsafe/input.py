import tensorflow as tf
from tensorflow import math as tfmath


def norms(batches):
    results = []
    for batch in batches:
        wrapper = tf.function(tfmath.reduce_euclidean_norm)
        results.append(wrapper(batch))
    return results


def per_model(models, x):
    # a different function object per model: it stays
    return [tf.function(model.call)(x) for model in models]


def spreads(batches):
    return [tf.function(tf.math.reduce_std)(b) for b in batches]
