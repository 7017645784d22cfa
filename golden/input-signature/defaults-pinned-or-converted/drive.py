import tensorflow as tf

from input import scaled, shifted

for n in (2, 3, 4):
    print(scaled(tf.ones([n])).numpy().tolist(), scaled(tf.ones([n]), scale=2.0).numpy().tolist(),
          shifted(tf.ones([n]), offset=3.0).numpy().tolist())
