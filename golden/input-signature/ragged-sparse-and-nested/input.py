import collections

import tensorflow as tf

Batch = collections.namedtuple("Batch", ["features", "labels"])


@tf.function
def bag_of_words(tokens, features):
    return tf.reduce_sum(tokens, axis=1), tf.sparse.reduce_sum(features, axis=1)


@tf.function
def weighted(batch, extras):
    return tf.reduce_sum(batch.features) * tf.reduce_mean(batch.labels) + extras["bias"] + extras["scales"][0]


@tf.function
def pair_sum(pair):
    x, y = pair
    return tf.reduce_sum(x) + tf.reduce_sum(y)
