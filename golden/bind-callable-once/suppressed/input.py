import tensorflow as tf


class Agent:
    def __init__(self):
        self.w = tf.Variable(2.0)

    def update(self, x):
        return self.w * x


@tf.function
def run_epoch(fn, x):
    return fn(x)


agent = Agent()
for epoch in range(3):
    run_epoch(agent.update, tf.constant(1.0))  # retrace-fix: ignore[RTF009]
