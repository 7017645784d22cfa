"""Additive synth that upsamples frame amplitudes to n_samples audio samples (rebuilt from magenta/ddsp#33)."""

import numpy as np
import tensorflow as tf

SAMPLE_RATE = 8000.0


@tf.function
def synthesize(amplitudes, frequency, n_samples):
    window = np.hanning(n_samples).astype("float32")  # numpy on the Python int
    envelope = tf.image.resize(amplitudes[tf.newaxis, :, tf.newaxis], [n_samples, 1])[0, :, 0]
    t = tf.range(n_samples, dtype=tf.float32) / SAMPLE_RATE
    return envelope * window * tf.sin(2.0 * np.pi * frequency * t)
