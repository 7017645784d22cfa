import tensorflow as tf


class Agent:
    def __init__(self):
        self.w = tf.Variable(2.0)

    def update(self, x):
        return self.w * x

    def train(self, batches):
        total = 0.0
        self_update = self.update
        for _ in range(3):
            # the receiver is `self`
            total += run_epoch(self_update, batches)
        return total


@tf.function
def run_epoch(fn, batches):
    return tf.add_n([tf.reduce_sum(fn(b)) for b in batches])


def main(batches):
    agent = Agent()
    results = []

    agent_update = agent.update
    # one epoch per step
    for epoch in range(4):
        results.append(run_epoch(agent_update, batches))  # keep this comment
        results.append(run_epoch(fn=agent_update, batches=batches))
    results.append(agent.train(batches))
    return results
