import numpy as np
import tensorflow as tf

from input import run, weighted_loss

rng = np.random.default_rng(0)
batches = [tf.constant(rng.normal(size=(n, 3)).astype("float32")) for n in (2, 4, 8)]
print(np.round([float(v) for v in run(batches, [0.5, 0.25])], 5).tolist())
print("traces", weighted_loss.experimental_get_tracing_count())
