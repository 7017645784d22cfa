import numpy as np
import tensorflow as tf

from input import predict_keyword_input, predict_with_retracing

model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(2)])
X = tf.reshape(tf.range(15, dtype=tf.float32), [3, 5])
reference = model(X, training=False).numpy()
np.testing.assert_allclose(predict_with_retracing(model, X).numpy(), reference, rtol=1e-6)
np.testing.assert_allclose(predict_keyword_input(model, X).numpy(), reference, rtol=1e-6)
print("result", np.round(reference, 5).tolist())
