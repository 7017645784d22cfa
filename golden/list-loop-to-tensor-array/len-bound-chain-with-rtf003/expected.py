import tensorflow as tf


@tf.function(input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)])
def row_norms(batch):
    norms = tf.TensorArray(tf.float32, size=tf.shape(batch)[0])
    for i in tf.range(tf.shape(batch)[0]):
        norms = norms.write(i, tf.norm(batch[i]))
    return norms.stack()


@tf.function(reduce_retracing=True)
def scaled_rows(batch, scale):
    rows = tf.TensorArray(tf.float32, size=tf.shape(batch)[0])
    for i in tf.range(tf.shape(batch)[0]):
        rows = rows.write(i, batch[i] * scale)  # dtype from the traces of `batch`
    return rows.concat()
