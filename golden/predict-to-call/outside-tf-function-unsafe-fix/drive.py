import numpy as np
import tensorflow as tf

from input import evaluate

batches = [np.full((rows, 3), rows, dtype="float32") for rows in (2, 4, 3)]
result = evaluate(batches)
print("result", type(result).__name__, result.shape, np.round(result, 5).ravel().tolist())
