import tensorflow as tf


@tf.function(reduce_retracing=True)
def step(x, model):
    # the recorded traces vary dim 0 of `x`: on the generalised trace x.shape[0] is None
    return tf.reshape(model(x), [x.shape[0], -1])


@tf.function(reduce_retracing=True)
def per_row(x, y):
    rows = []
    for i in range(len(x)):
        rows.append(x[i] * 2)
    width = y.shape[-1]  # dim 1 of `y` varied
    height = y.shape[0]  # dim 0 of `y` never varied
    return tf.stack(rows) + width + height


@tf.function(reduce_retracing=True)
def recorded_relaxed(x):
    # recorded with reduce_retracing already on: the second trace has dim 0 None
    return tf.reshape(x, [x.shape[0], -1])


@tf.function(reduce_retracing=True)
def any_rank(x):
    return tf.zeros(x.shape.as_list())


@tf.function(reduce_retracing=True)
def not_recorded(x):
    # no traces for this function: the batch dimension is assumed to vary
    return tf.reshape(x, [x.shape[0], -1])


@tf.function(reduce_retracing=True)
def image_size(images):
    height, width, _ = images.shape.as_list()[1:]
    return tf.image.resize(images, [height // 2, width // 2])
