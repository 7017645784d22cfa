import tensorflow as tf

from input import features

for batch in (2, 3, 4):
    print(features(tf.ones([batch, 3])).numpy().tolist())
