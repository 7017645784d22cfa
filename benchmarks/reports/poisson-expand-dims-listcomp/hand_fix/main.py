import json

import tensorflow as tf

from tiling import expand_1d_tensor_to_k_dims

out = []
for repeat in range(3):
    for dim in range(3):
        t = tf.range(4, dtype=tf.float32) + float(repeat)
        grid = expand_1d_tensor_to_k_dims(t, dim, 3) * tf.ones([4, 4, 4])
        out.append([list(grid.shape), float(tf.reduce_sum(grid * tf.range(64, dtype=tf.float32)[:, None, None][:4]))])
print(json.dumps(out))
