import json

import numpy as np

from detector import train_step

rng = np.random.default_rng(0)
losses = []
for epoch in range(2):
    for max_boxes in [3, 5, 2, 5, 4]:  # boxes padded to the most crowded image of each batch
        images = rng.uniform(size=(4, 8, 8, 3)).astype("float32")
        boxes = rng.uniform(size=(4, max_boxes, 4)).astype("float32")
        classes = rng.integers(-1, 3, size=(4, max_boxes)).astype("int32")  # -1: padding
        losses.append(round(float(train_step(images, boxes, classes)), 5))
print(json.dumps(losses))
