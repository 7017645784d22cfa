"""BERT-SQuAD-style step on a dict of features (rebuilt from tensorflow/models#7825)."""

import tensorflow as tf

embedding = tf.keras.layers.Embedding(100, 8)
span_head = tf.keras.layers.Dense(2)


@tf.function
def predict_step(features):
    hidden = embedding(features["input_ids"])
    mask = tf.cast(features["input_mask"], tf.float32)[..., None]
    hidden = hidden * mask + tf.cast(features["segment_ids"], tf.float32)[..., None]
    logits = span_head(hidden)
    return tf.reduce_sum(logits, axis=1)
