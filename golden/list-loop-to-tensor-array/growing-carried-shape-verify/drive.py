import tensorflow as tf

from input import run

for tokens, steps in run(tf.zeros([2, 1], tf.int32)):
    print(tokens.numpy().tolist(), steps.numpy().tolist())
