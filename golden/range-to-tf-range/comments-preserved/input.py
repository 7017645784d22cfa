import tensorflow as tf


@tf.function
def accumulate(x, n):  # n varies
    acc = tf.zeros_like(x)
    for i in range(  # the step count
        n
    ):  # trailing comment
        # body comment
        acc = acc + x  # add once per step
    else_value = acc
    return else_value


def main(x):
    return [accumulate(x, 1), accumulate(x, 2), accumulate(x, 3)]
