import tensorflow as tf


class Agent:
    def __init__(self):
        self.eps = 1.0

    def act(self, x):
        return x * self.eps

    def decay(self):
        self.eps *= 0.5


@tf.function
def run_epoch(fn, x):
    return fn(x)


def main(x):
    agent = Agent()
    results = []
    for epoch in range(3):
        results.append(run_epoch(agent.act, x))
        agent.decay()
    return results
