import tensorflow as tf

from input import predict

for batch in (2, 4, 8):
    print(predict(tf.ones([batch, 3])).numpy().tolist())
