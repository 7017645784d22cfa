"""``__del__`` order: objects passed to a tf.function announce their death; the log is output."""
import json

import tensorflow as tf

LOG = []


class Batch:
    def __init__(self, n):
        self.n = n
        self.x = tf.ones([n])

    def __del__(self):
        LOG.append(f"del {self.n}")


@tf.function
def total(batch, x):
    return tf.reduce_sum(x)


def main():
    for n in (1, 2, 2, 3):
        batch = Batch(n)
        LOG.append(f"sum {float(total(batch, batch.x))}")
        del batch
    print(json.dumps({"log": LOG, "traces": total.experimental_get_tracing_count()}))


main()
