import tensorflow as tf

from input import neighbour_indices, run

out = run(tf.constant([32, 48, 64]), tf.reshape(tf.range(9), [3, 3]), tf.constant([-0.5, 0.0, 0.5]))
print([[t.numpy().tolist() for t in pair] for pair in out])
print("traces", neighbour_indices.experimental_get_tracing_count())
