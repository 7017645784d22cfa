import tensorflow as tf

from input import total

for n in (2, 3, 5):
    print(float(total(tf.ones([n]))))
