import tensorflow as tf

from input import mean_row, row_sums

for rows in (2, 4):
    print(mean_row(tf.ones([rows, 3])).numpy().tolist(), row_sums(tf.ones([rows, 3])).numpy().tolist())
