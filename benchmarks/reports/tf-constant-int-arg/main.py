import json

import tensorflow as tf

from padding import pad_to_length

ids = tf.constant([3, 1, 4, 1, 5], tf.int32)
out = [pad_to_length(ids, length).numpy().tolist() for length in [8, 10, 12, 8, 16, 10]]
print(json.dumps(out))
