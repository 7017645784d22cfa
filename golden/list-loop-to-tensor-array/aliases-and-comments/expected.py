import tensorflow as tf
from tensorflow import function, stack, reduce_sum


@function
def sums(x, n):
    # one entry per step
    totals = tf.TensorArray(tf.float32, size=n)  # the step sums
    for i in tf.range(n):
        # sum the batch
        totals = totals.write(i, reduce_sum(x))  # a scalar
    return totals.stack()  # stacked


def main():
    out = []
    for n in (2, 3, 4):
        out.append(sums(tf.constant([1.0, 2.0]), tf.constant(n)).numpy().tolist())
    return out
