"""A training loop passes a bound method: ``run_epoch(agent.update, batches)``.

``agent.update`` is a new method object at every access; TensorFlow keys it
with a weak reference (equal while both are alive), so each epoch retraces once
the previous epoch's method object has died.  Holding any of them alive changes
the count.
"""
import json

import tensorflow as tf


class Agent:
    def __init__(self):
        self.total = 0.0

    def update(self, x):
        return tf.reduce_sum(x) * 2.0


@tf.function
def run_epoch(update, batch):
    return update(batch)


def main():
    agent = Agent()
    out = []
    for epoch in range(8):
        out.append(float(run_epoch(agent.update, tf.ones([4]) * epoch)))
    print(json.dumps({"out": out, "traces": run_epoch.experimental_get_tracing_count()}))


main()
