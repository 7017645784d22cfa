import json

import tensorflow as tf

from forecaster import Forecaster

model = Forecaster(0.9)
state = tf.linspace(0.0, 1.0, 16)
results = []
for _ in range(5):
    for horizon in (6, 12, 24, 48):
        results.append(float(tf.reduce_sum(model.forecast(state, horizon))))
with open("out.json", "w") as handle:
    json.dump(results, handle)
print("checksum", sum(results))
