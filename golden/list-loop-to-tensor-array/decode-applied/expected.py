import tensorflow as tf

cell = tf.keras.layers.GRUCell(6)
readout = tf.keras.layers.Dense(5)
embedding = tf.keras.layers.Embedding(5, 4)


@tf.function(input_signature=[
    tf.TensorSpec(shape=[2, 6], dtype=tf.float32),
    tf.TensorSpec(shape=[], dtype=tf.int32),
])
def greedy_decode(state, max_len):
    token = tf.zeros([tf.shape(state)[0]], tf.int32)
    outputs = tf.TensorArray(tf.int32, size=max_len)
    for i in tf.range(max_len):
        out, [state] = cell(embedding(token), [state])
        token = tf.argmax(readout(out), axis=-1, output_type=tf.int32)
        outputs = outputs.write(i, token)
    return tf.experimental.numpy.moveaxis(outputs.stack(), 0, 1)


def decode_all(states):
    return [greedy_decode(state, max_len) for state, max_len in states]
