import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
import input as case  # noqa: E402

rng = np.random.default_rng(1)
batches = [rng.normal(size=(n, 3)) for n in (2, 5, 3)]  # float64, as numpy makes them
for value in case.score(list(batches)):
    print("result", np.round(value, 4).ravel().tolist())
    print("dtype", value.dtype, type(value).__name__)
for value in case.score_all(batches):
    print("result", np.round(value, 4).ravel().tolist())
    print("dtype", value.dtype, type(value).__name__)
