import json

import tensorflow as tf

from chain import run_chunk

state = tf.constant([1.0, -2.0, 0.5])
trace = []
for chunk in range(6):  # short runs of the chain, resumed from the last state
    state = run_chunk(state)
    trace.append(state.numpy().round(6).tolist())
print(json.dumps(trace))
