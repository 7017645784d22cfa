"""The captured names are listed in the order the body first reads them (`zeta` before
`alpha`), whatever order the scope analysis hands the reads over in: the message is the
same on every run."""
import tensorflow as tf


def step(alpha, zeta, x):
    @tf.function
    def inner(x):
        return zeta * x + alpha * zeta + alpha * x + zeta

    return inner(x)


for value in range(3):
    step(1.0, 2.0, value)
