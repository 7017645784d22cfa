import tensorflow
from tensorflow import function as tf_function

import tensorflow.compat.v2 as tf2

OFFSET = 1.0


def smooth(values):
    # the smoothing kernel: a tf.function per call before
    @tf_function
    def kernel(v):  # one graph
        # add the offset
        return v + OFFSET  # trailing comment

    # apply it
    return [kernel(v) for v in values]


def shift(values):
    @tf2.function(jit_compile=False)
    def move(v):
        return tensorflow.roll(v, 1, axis=0)

    return [move(v) for v in values]


def main(batches):
    for values in batches:
        smooth(values)
        shift(values)
