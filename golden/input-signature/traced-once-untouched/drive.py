import tensorflow as tf

from input import fixed_shape, same_int

for _ in range(4):
    print(float(fixed_shape(tf.ones([8, 8]))), same_int(tf.zeros([2]), 3).numpy().tolist())
