import functools

import tensorflow as tf


class Agent:
    def __init__(self):
        self.w = tf.Variable(2.0)

    def update(self, x):
        return self.w * x

    @staticmethod
    def static(x):
        return x

    @property
    def weight(self):
        return self.w


@tf.function
def run_epoch(fn, x):
    return fn(x)


def plain(fn, x):
    return fn(x)


def main(x, model, batches):
    agent = Agent()
    update = agent.update
    results = []
    for epoch in range(3):
        results.append(run_epoch(update, x))  # bound once already
        results.append(run_epoch(model.call, x))  # a receiver whose class is not shown here
        results.append(run_epoch(agent.static, x))  # the same function every time
        results.append(run_epoch(agent.weight, x))  # a property
        results.append(plain(agent.update, x))  # not a tf.function
        results.append(run_epoch(functools.partial(batches.pop), x))  # built from a value the loop changes
    results.append(run_epoch(agent.update, x))  # not in a loop
    results.extend(run_epoch(agent.update, b) for b in batches)  # a comprehension: no statement to bind before
    return results
