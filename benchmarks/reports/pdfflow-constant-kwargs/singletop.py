"""Matrix element called with Python keyword arguments that never change (rebuilt from N3PDF/pdfflow#34, review comment)."""

import tensorflow as tf


@tf.function
def singletop(xarr, **kwargs):
    mass = kwargs.get("mass", 1.0)
    coupling = kwargs.get("coupling", 0.1)
    return coupling * tf.reduce_sum(tf.square(xarr) + mass, axis=-1)
