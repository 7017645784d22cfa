import tensorflow as tf

from input import both, flexible_computation

for shape in ([10, 20], [10, 21], [15, 15]):
    print(float(flexible_computation(tf.ones(shape))), both(tf.ones(shape[:1])).numpy().sum())
