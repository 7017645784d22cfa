"""Additive synth that upsamples frame amplitudes to n_samples audio samples (rebuilt from magenta/ddsp#33).

Hand fix: the numpy window is computed outside and passed in; n_samples is read from its dynamic shape,
and both tensors get a [None] signature."""

import numpy as np
import tensorflow as tf

SAMPLE_RATE = 8000.0


@tf.function(input_signature=[
    tf.TensorSpec([None], tf.float32),
    tf.TensorSpec([], tf.float32),
    tf.TensorSpec([None], tf.float32),
])
def _synthesize(amplitudes, frequency, window):
    n_samples = tf.shape(window)[0]
    envelope = tf.image.resize(amplitudes[tf.newaxis, :, tf.newaxis], tf.stack([n_samples, 1]))[0, :, 0]
    t = tf.cast(tf.range(n_samples), tf.float32) / SAMPLE_RATE
    return envelope * window * tf.sin(2.0 * np.pi * frequency * t)


def synthesize(amplitudes, frequency, n_samples):
    return _synthesize(amplitudes, frequency, np.hanning(n_samples).astype("float32"))
