"""Greedy RNN decoding written as a Python for loop over range(max_len) inside a tf.function (rebuilt from tensorflow/tensorflow#38628)."""

import numpy as np
import tensorflow as tf

VOCAB, HIDDEN = 12, 16
_rng = np.random.default_rng(1)
embedding = tf.Variable(_rng.normal(scale=0.5, size=(VOCAB, HIDDEN)).astype("float32"))
w_in = tf.Variable(_rng.normal(scale=0.3, size=(HIDDEN, HIDDEN)).astype("float32"))
w_rec = tf.Variable(_rng.normal(scale=0.3, size=(HIDDEN, HIDDEN)).astype("float32"))
w_out = tf.Variable(_rng.normal(scale=0.5, size=(HIDDEN, VOCAB)).astype("float32"))


@tf.function(input_signature=[tf.TensorSpec([None], tf.int32), tf.TensorSpec([None, HIDDEN], tf.float32),
                              tf.TensorSpec([], tf.int32)])
def greedy_decode(start_tokens, state, max_len):
    tokens = start_tokens
    outputs = tf.TensorArray(tf.int32, size=max_len)
    for t in tf.range(max_len):  # a tf.while_loop: one graph for every max_len
        x = tf.gather(embedding, tokens)
        state = tf.tanh(tf.matmul(x, w_in) + tf.matmul(state, w_rec))
        tokens = tf.argmax(tf.matmul(state, w_out), axis=-1, output_type=tf.int32)
        outputs = outputs.write(t, tokens)
    return tf.transpose(outputs.stack()), state
