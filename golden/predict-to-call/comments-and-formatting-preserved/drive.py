import numpy as np
import tensorflow as tf

from input import infer, model

x = tf.ones([4, 3])
reference = model(x, training=False).numpy()
np.testing.assert_allclose(infer(x).numpy(), reference, rtol=1e-6)
print("result", np.round(reference, 5).tolist())
