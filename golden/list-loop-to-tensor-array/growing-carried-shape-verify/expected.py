import tensorflow as tf

embed = tf.keras.layers.Embedding(7, 4)
proj = tf.keras.layers.Dense(7)


@tf.function
def generate(prompt, max_len):
    tokens = tf.identity(prompt)
    steps = tf.TensorArray(tf.int32, size=max_len)
    for _ in tf.range(max_len):
        tf.autograph.experimental.set_loop_options(shape_invariants=[(tokens, tf.TensorShape([None] * tokens.shape.rank))])
        h = tf.reduce_mean(embed(tokens), axis=1)
        logits = proj(h)
        nxt = tf.argmax(logits, axis=-1, output_type=tf.int32)
        tokens = tf.concat([tokens, nxt[:, None]], axis=1)
        steps = steps.write(_, nxt)
    return tokens, tf.experimental.numpy.moveaxis(steps.stack(), 0, 1)


def run(prompt):
    return [generate(prompt, tf.constant(n)) for n in (2, 3, 4)]
