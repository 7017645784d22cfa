import json

import numpy as np

from fluid import train

rng = np.random.default_rng(0)
losses = []
for epoch in range(2):
    for count in [120, 95, 140, 120, 160, 95]:  # particles per scene
        positions = rng.normal(size=(count, 3)).astype("float32")
        velocities = (0.1 * positions[:, ::-1]).astype("float32")
        losses.append(round(float(train(positions, velocities)), 6))
print(json.dumps(losses))
