import tensorflow as tf

SCALE = 2.0


def run_once(batches):
    # called once per process; two recorded runs merged count its trace twice
    @tf.function
    def step(x):
        return x * SCALE

    return [step(b) for b in batches]
