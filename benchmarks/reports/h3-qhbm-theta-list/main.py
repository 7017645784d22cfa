"""An energy function called with the model's parameters as a Python list of floats updated every step (rebuilt from google/qhbm-library#76)."""

import json

import numpy as np
import tensorflow as tf


@tf.function
def energy(bits, thetas):
    return thetas[0] * bits[:, 0] + thetas[1] * bits[:, 1] + thetas[2] * bits[:, 0] * bits[:, 1]


rng = np.random.default_rng(0)
bits = tf.constant(rng.choice([-1.0, 1.0], size=(64, 2)).astype("float32"))
target = np.array([0.3, -0.2, 0.5])
thetas = [0.0, 0.0, 0.0]
means = []
for step in range(6):
    e = energy(bits, thetas).numpy()
    means.append(round(float(e.mean()), 5))
    grads = [(t - g) for t, g in zip(thetas, target)]
    thetas = [float(t - 0.4 * g) for t, g in zip(thetas, grads)]  # new Python floats every step
print(json.dumps({"means": means, "thetas": [round(t, 5) for t in thetas]}))
