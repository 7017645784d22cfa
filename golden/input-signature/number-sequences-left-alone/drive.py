import tensorflow as tf

from input import pick

x = tf.constant([1.0])
for step in range(3):
    out = pick(x, [step % 2 == 0, True], ["a", str(step)], [[float(step)], [1.0]])
    print(out[0].numpy().tolist(), out[1], out[2])
