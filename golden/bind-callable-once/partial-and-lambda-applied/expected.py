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
    scaled_fn = functools.partial(scaled, scale=SCALE)
    scaled_partial = partial(scaled, scale=2.0)
    run_epoch_fn = lambda x: tf.square(x) * SCALE
    while len(results) < 6:
        results.append(run_epoch(scaled_fn, batches))
        results.append(run_epoch(scaled_partial, batches))
        results.append(run_epoch(run_epoch_fn, batches))
    return results
