import json

import tensorflow as tf

from bag import score

batches = [
    [[1, 2, 3], [4, 5]],
    [[1], [2, 3], [5, 6, 7, 0]],
    [[0, 1], [2]],
    [[7], [6, 5], [4, 3, 2], [1]],
    [[3, 3, 3], [0]],
]
out = [score(tf.ragged.constant(b, dtype=tf.int32)).numpy().tolist() for b in batches]
print(json.dumps(out))
