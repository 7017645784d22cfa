import numpy as np
import tensorflow as tf

from input import infer, infer_relaxed, model

for rows in (2, 5):
    x = tf.ones([rows, 3])
    reference = model(x, training=False).numpy()
    np.testing.assert_allclose(infer(x).numpy(), reference, rtol=1e-6)
    np.testing.assert_allclose(infer_relaxed(x).numpy(), reference, rtol=1e-6)
    print("result", np.round(reference, 5).tolist())
