import tensorflow as tf

from input import run

qs = [tf.constant([[0.1, 0.7, 0.2], [0.5, 0.3, 0.9]]) * (i + 1) for i in range(6)]
print([a.numpy().tolist() for a in run(qs)])
