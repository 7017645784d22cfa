import functools
from functools import partial

import tensorflow as tf

SCALE = 3.0


def scaled(x, scale):
    return x * scale


@tf.function
def run_epoch(fn, batches):
    return tf.add_n([tf.reduce_sum(fn(b)) for b in batches])


def main(batches):
    results = []
    while len(results) < 6:
        results.append(run_epoch(functools.partial(scaled, scale=SCALE), batches))
        results.append(run_epoch(partial(scaled, scale=2.0), batches))
        results.append(run_epoch(lambda x: tf.square(x) * SCALE, batches))
    return results
