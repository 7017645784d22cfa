import tensorflow as tf


@tf.function(reduce_retracing=True)
def step(x, model):
    # the recorded traces vary dim 1 of `x` only: reduce_retracing leaves dim 0 static
    return tf.reshape(model(x), [x.shape[0], -1])


@tf.function(reduce_retracing=True)
def per_row(x, y, scale):
    rows = []
    for i in range(len(x)):  # dim 0 of `x` never varied
        rows.append(x[i] * scale)
    dims = y.shape.as_list()  # `y` has the same shape in every trace
    return tf.stack(rows) + dims[0] + scale.shape[0]


@tf.function(reduce_retracing=True)
def unknown_batch(x):
    # dim 0 is None in every trace (no static batch size): reduce_retracing does not change it
    logits = tf.reshape(x, [-1, 10])
    return tf.ensure_shape(logits, [x.shape[0], 10])
