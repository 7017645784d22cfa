"""One problem, one finding: RTF103 defers to RTF001 on a Python-int step count."""
import tensorflow as tf


@tf.function
def train(x, n_steps):
    for i in range(n_steps):
        print(i)
    return x


@tf.function
def warmup(x, n_steps):
    for i in range(n_steps):  # retrace-fix: ignore[RTF001]
        print(i)
    return x


@tf.function
def evaluate(x, n_steps):
    for i in range(n_steps):
        print(i)
    return x


@tf.function
def fit(x, n_steps):
    total = tf.zeros([])
    for i in tf.range(n_steps):
        total += tf.reduce_sum(x)
    return total


@tf.function
def scale(x, factor):
    return x * factor


def main(x):
    train(x, n_steps=10)
    train(x, 20)
    for epoch in range(3):
        warmup(x, epoch)  # the loop's suppression covers this duplicate too
    evaluate(x, 1)  # retrace-fix: ignore[RTF103]
    evaluate(x, 2)
    for n in [5, 10]:
        fit(x, tf.constant(n))
    scale(x, 2)  # no loop: RTF103 alone reports it
    scale(x, 3)
