import tensorflow as tf

from input import tile_rows

for repeats in (1, 2, 3):
    print(tile_rows(tf.ones([2, 3]), repeats).shape)
