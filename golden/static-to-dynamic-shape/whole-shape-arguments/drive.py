import tensorflow as tf
from input import noisy, like
for b in (2, 3, 5):
    print(noisy(tf.ones([b, 4])).numpy().sum(), like(tf.ones([b, 2]), tf.ones([b * 2])).numpy().sum())
