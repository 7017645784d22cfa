import tensorflow as tf


@tf.function
def train(x, n_steps):
    total = tf.zeros([])
    for _ in range(n_steps):
        total += tf.reduce_mean(x) * 0.5
    return total


class Trainer:
    """A method named like the tf.function: `obj.train()` reaches it, a bare `train(...)` never does."""

    def __init__(self, steps):
        self.steps = steps

    def train(self, x):
        return train(x, 3) + self.steps


def main(x):
    results = [train(x, 2), train(x, 4)]
    results.append(Trainer(1).train(x))
    return results
