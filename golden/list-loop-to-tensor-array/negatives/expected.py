import tensorflow as tf

NUM_HEADS = 4


@tf.function
def constant_bounds(x):
    # unrolled on purpose: the sizes never change
    heads = []
    for i in range(NUM_HEADS):
        heads.append(x * float(i))
    fixed = []
    for i in range(3):
        fixed.append(x + 1.0)
    return tf.stack(heads), tf.stack(fixed)


@tf.function
def called_with_one_length(x, n):
    outputs = []
    for i in range(n):
        outputs.append(x)
    return tf.stack(outputs)


@tf.function(autograph=False)
def no_autograph(x, n):
    outputs = []
    for i in range(n):
        outputs.append(x)
    return tf.stack(outputs)


def eager(x, n):
    outputs = []
    for i in range(n):
        outputs.append(x)
    return tf.stack(outputs)


def main(x):
    for step in range(3):
        constant_bounds(x)
        called_with_one_length(x, 4)
        eager(x, step)
    no_autograph(x, 2)
