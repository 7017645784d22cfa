import tensorflow as tf


@tf.function
def step(x, n):
    total = tf.zeros([])
    for _ in range(n):
        total += tf.reduce_sum(x)
    return total


class Model(tf.Module):
    # a second tf.function named `step`: the name is ambiguous for call-site work, so neither is rewritten
    @tf.function
    def step(self, x, n):
        total = tf.zeros([])
        for _ in range(n):
            total += tf.reduce_max(x)
        return total


def main(x):
    model = Model()
    return [step(x, 2), step(x, 3), model.step(x, 2), model.step(x, 5)]
