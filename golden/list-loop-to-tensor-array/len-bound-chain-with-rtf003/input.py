import tensorflow as tf


@tf.function
def row_norms(batch):
    norms = []
    for i in range(len(batch)):
        norms.append(tf.norm(batch[i]))
    return tf.stack(norms)


@tf.function
def scaled_rows(batch, scale):
    rows = []
    for i in range(batch.shape[0]):
        rows.append(batch[i] * scale)  # dtype from the traces of `batch`
    return tf.concat(rows, 0)
