"""Greedy RNN decoding written as a Python for loop over range(max_len) inside a tf.function (rebuilt from tensorflow/tensorflow#38628)."""

import numpy as np
import tensorflow as tf

VOCAB, HIDDEN = 12, 16
_rng = np.random.default_rng(1)
embedding = tf.Variable(_rng.normal(scale=0.5, size=(VOCAB, HIDDEN)).astype("float32"))
w_in = tf.Variable(_rng.normal(scale=0.3, size=(HIDDEN, HIDDEN)).astype("float32"))
w_rec = tf.Variable(_rng.normal(scale=0.3, size=(HIDDEN, HIDDEN)).astype("float32"))
w_out = tf.Variable(_rng.normal(scale=0.5, size=(HIDDEN, VOCAB)).astype("float32"))


@tf.function
def greedy_decode(start_tokens, state, max_len):
    tokens = start_tokens
    outputs = []
    for t in range(max_len):  # unrolled max_len times, one graph per max_len
        x = tf.gather(embedding, tokens)
        state = tf.tanh(tf.matmul(x, w_in) + tf.matmul(state, w_rec))
        tokens = tf.argmax(tf.matmul(state, w_out), axis=-1, output_type=tf.int32)
        outputs.append(tokens)
    return tf.stack(outputs, axis=1), state
