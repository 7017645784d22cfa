import tensorflow as tf


class Agent:
    def __init__(self, w):
        self.w = tf.Variable(w)

    def update(self, x):
        return self.w * x


class Swappable:
    def __init__(self):
        self.w = 2.0

    def update(self, x):
        return self.w * x


@tf.function
def run_epoch(fn, x):
    return fn(x)


def main(x):
    results = []
    for epoch in range(3):
        agent = Agent(float(epoch))
        results.append(run_epoch(agent.update, x))
        results.append(run_epoch(lambda v: v * epoch, x))
        results.append(run_epoch(lambda v, k=epoch: v * k, x))
    swappable = Swappable()
    swappable.update = lambda v: v
    for epoch in range(3):
        results.append(run_epoch(swappable.update, x))
    return results
