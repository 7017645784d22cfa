import keras
import numpy as np
import tensorflow as tf

from input import run, run_string_annotation, run_tf_keras

net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
x = tf.ones([4, 3])
reference = net(x, training=False).numpy()
for function in (run, run_tf_keras, run_string_annotation):
    np.testing.assert_allclose(function(net, x).numpy(), reference, rtol=1e-6)
print("result", np.round(reference, 5).tolist())
