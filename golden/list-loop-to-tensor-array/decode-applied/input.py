import tensorflow as tf

cell = tf.keras.layers.GRUCell(6)
readout = tf.keras.layers.Dense(5)
embedding = tf.keras.layers.Embedding(5, 4)


@tf.function
def greedy_decode(state, max_len):
    token = tf.zeros([tf.shape(state)[0]], tf.int32)
    outputs = []
    for i in range(max_len):
        out, [state] = cell(embedding(token), [state])
        token = tf.argmax(readout(out), axis=-1, output_type=tf.int32)
        outputs.append(token)
    return tf.stack(outputs, axis=1)


def decode_all(states):
    return [greedy_decode(state, max_len) for state, max_len in states]
