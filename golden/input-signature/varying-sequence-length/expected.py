import tensorflow as tf

embedding = tf.Variable(tf.random.stateless_normal([100, 8], seed=[1, 2]), name="embedding")


@tf.function(input_signature=[
    tf.TensorSpec(shape=[4, None], dtype=tf.int32),
    tf.TensorSpec(shape=[4, None], dtype=tf.bool),
])
def encode(tokens, mask):
    vectors = tf.nn.embedding_lookup(embedding, tokens)
    weights = tf.cast(mask, tf.float32)[..., tf.newaxis]
    return tf.reduce_sum(vectors * weights, axis=1) / tf.reduce_sum(weights, axis=1)
