import tensorflow as tf

from input import scaled_features, tile_rows

for factor, repeats in ((0.5, 1), (1.5, 2), (2.5, 3)):
    print(scaled_features(tf.constant([[-1.0, 2.0]]), factor).numpy().tolist(), tile_rows(tf.ones([2, 3]), repeats).shape)
