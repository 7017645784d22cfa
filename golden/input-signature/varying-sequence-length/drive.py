import tensorflow as tf

from input import encode

for length in (5, 9, 12):
    tokens = tf.reshape(tf.range(4 * length) % 100, [4, length])
    mask = tf.sequence_mask([length, length - 1, 2, 1], length)
    print(encode(tokens, mask).numpy().round(4).tolist())
