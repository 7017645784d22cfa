import tensorflow as tf

from input import activate

for kind in ("relu", "sigmoid", "relu"):
    print(activate(tf.constant([-1.0, 1.0]), kind).numpy().tolist())
