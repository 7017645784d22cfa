import tensorflow as tf

from input import main

batches = [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]
print([round(float(v), 5) for v in main(batches)])
