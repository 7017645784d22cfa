"""Seed pattern: varying sequence lengths with the deprecated `experimental_relax_shapes`."""

import tensorflow as tf


@tf.function(experimental_relax_shapes=True)
def mean_pool(sequences):
    return tf.reduce_mean(sequences, axis=1)


if __name__ == "__main__":
    for length in (10, 12, 14, 16):
        print(mean_pool(tf.ones([4, length, 8])).shape)
    print("traces:", mean_pool.experimental_get_tracing_count())
