import tensorflow as tf

from input import embed

for batch in (2, 4, 8):
    print(embed(tf.ones([batch, 3, 2])).numpy().tolist())
