import json

import numpy as np

from grid import refine_grid

rng = np.random.default_rng(0)
out = []
for iteration in range(4):
    weights = rng.uniform(0.1, 1.0, size=(40,)) * (1.0 + iteration)
    out.append(refine_grid(weights, 5))
print(json.dumps(out))
