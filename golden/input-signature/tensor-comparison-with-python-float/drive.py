import tensorflow as tf

from input import gated, policy

greedy = tf.constant([1, 0], tf.int32)
random_action = tf.constant([2, 2], tf.int32)
coin = tf.constant([0.3, 0.7], tf.float32)
for step in range(4):
    epsilon = max(0.1, 1.0 - 0.3 * step)
    print(policy(greedy, random_action, coin, epsilon).numpy().tolist())
    print(float(gated(tf.ones([2]), 0.5, epsilon)[0]))
