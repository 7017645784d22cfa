import tensorflow as tf

from input import norms, spreads

batches = [tf.constant([[3.0, 4.0]]), tf.constant([[6.0, 8.0]]), tf.constant([[1.0, 0.0]])]
print([float(v) for v in norms(batches)], [float(v) for v in spreads(batches)])
