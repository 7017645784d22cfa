import tensorflow as tf

from input import first_row, total

for shape in ([2], [2, 3], [2, 3, 4]):
    print(float(total(tf.ones(shape))), first_row(tf.ones(shape)).shape)
