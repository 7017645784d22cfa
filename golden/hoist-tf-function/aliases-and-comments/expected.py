import tensorflow
from tensorflow import function as tf_function

import tensorflow.compat.v2 as tf2

OFFSET = 1.0


# the smoothing kernel: a tf.function per call before
@tf_function
def kernel(v):  # one graph
    # add the offset
    return v + OFFSET  # trailing comment


def smooth(values):
    # apply it
    return [kernel(v) for v in values]


@tf2.function(jit_compile=False)
def move(v):
    return tensorflow.roll(v, 1, axis=0)


def shift(values):
    return [move(v) for v in values]


def main(batches):
    for values in batches:
        smooth(values)
        shift(values)
