"""Augmentation drawing its scale with numpy inside a tf.function (rebuilt from tensorflow/tensorflow#33297)."""

import numpy as np
import tensorflow as tf


@tf.function
def augment(x, level):
    scale = np.random.uniform(0.5, 1.5)  # drawn once per trace, frozen into the graph
    return x * scale + tf.cast(level, tf.float32)
