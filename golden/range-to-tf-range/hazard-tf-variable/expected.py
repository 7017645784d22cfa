import tensorflow as tf

slots = {}


@tf.function
def weighted_sum(x, n):
    total = tf.zeros_like(x)
    for i in range(n):
        if i not in slots:
            slots[i] = tf.Variable(float(i + 1))
        total += slots[i] * x
    return total


def main(x):
    return [weighted_sum(x, 3), weighted_sum(x, 2)]
