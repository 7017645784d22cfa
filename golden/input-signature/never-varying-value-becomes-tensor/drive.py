import tensorflow as tf

from input import scaled

for batch in (2, 4, 8):
    print(scaled(tf.ones([batch, 3]), 0.25).numpy().tolist())
