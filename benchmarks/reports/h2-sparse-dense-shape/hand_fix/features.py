"""Bag-of-words scoring on SparseTensor batches of different dense shapes (rebuilt from tensorflow/tensorflow#29198)."""

import tensorflow as tf

VOCAB = 20
weights = tf.constant([[0.1 * (i % 7) - 0.3] for i in range(VOCAB)], tf.float32)


@tf.function(input_signature=[tf.SparseTensorSpec([None, VOCAB], tf.float32)])
def score(batch):
    return tf.sparse.sparse_dense_matmul(batch, weights)[:, 0]
