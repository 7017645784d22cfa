"""retrace-fix: find and fix TensorFlow tf.function retracing."""

__version__ = "0.1.0"
