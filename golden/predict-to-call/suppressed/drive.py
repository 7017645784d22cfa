import numpy as np
import tensorflow as tf

from input import infer_other_code_suppressed, model

x = tf.ones([2, 3])
reference = model(x, training=False).numpy()
np.testing.assert_allclose(infer_other_code_suppressed(x).numpy(), reference, rtol=1e-6)
print("result", np.round(reference, 5).tolist())
