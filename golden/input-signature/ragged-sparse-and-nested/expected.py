import collections

import tensorflow as tf

Batch = collections.namedtuple("Batch", ["features", "labels"])


@tf.function(input_signature=[
    tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32, ragged_rank=1),
    tf.SparseTensorSpec(shape=[None, 5], dtype=tf.float32),
])
def bag_of_words(tokens, features):
    return tf.reduce_sum(tokens, axis=1), tf.sparse.reduce_sum(features, axis=1)


@tf.function(input_signature=[
    Batch(features=tf.TensorSpec(shape=[None, 4], dtype=tf.float32), labels=tf.TensorSpec(shape=[None], dtype=tf.float32)),
    {'bias': tf.TensorSpec(shape=[], dtype=tf.float32), 'scales': [tf.TensorSpec(shape=[None], dtype=tf.float32)]},
])
def weighted(batch, extras):
    return tf.reduce_sum(batch.features) * tf.reduce_mean(batch.labels) + extras["bias"] + extras["scales"][0]


@tf.function(input_signature=[
    (tf.TensorSpec(shape=[None], dtype=tf.float32), tf.TensorSpec(shape=[None, 2], dtype=tf.float32)),
])
def pair_sum(pair):
    x, y = pair
    return tf.reduce_sum(x) + tf.reduce_sum(y)
