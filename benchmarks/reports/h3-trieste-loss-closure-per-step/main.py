import json

import numpy as np

from model import GaussianProcess


def objective(x):
    return np.sin(3.0 * x) + 0.5 * x


rng = np.random.default_rng(0)
x = rng.uniform(-1.0, 1.0, size=(4, 1)).astype("float32")
y = objective(x).astype("float32")
model = GaussianProcess(x, y)
out = []
for step in range(5):
    loss = model.optimize()
    out.append([round(loss, 4), round(float(model.log_lengthscale.numpy()), 5)])
    new_x = rng.uniform(-1.0, 1.0, size=(1, 1)).astype("float32")
    x = np.concatenate([x, new_x])
    y = np.concatenate([y, objective(new_x).astype("float32")])
    model.update(x, y)
print(json.dumps(out))
