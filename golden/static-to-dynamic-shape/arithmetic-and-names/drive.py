import tensorflow as tf

from input import expand

for batch in (4, 6, 5):
    outputs = expand(tf.reshape(tf.range(batch * 3, dtype=tf.float32), [batch, 3]))
    print([o.numpy().tolist() for o in outputs])
