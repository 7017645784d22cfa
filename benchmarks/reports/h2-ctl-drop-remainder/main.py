import json

import numpy as np
import tensorflow as tf

from ctl import step, test_step, train_accuracy, train_step

rng = np.random.default_rng(0)
x = rng.normal(size=(100, 6)).astype("float32")
y = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")
train_ds = tf.data.Dataset.from_tensor_slices((x[:80], y[:80])).batch(16, drop_remainder=True)
test_ds = tf.data.Dataset.from_tensor_slices((x[80:], y[80:])).batch(10, drop_remainder=True)
history = []
for epoch in range(3):
    for images, labels in train_ds:  # a new iterator every epoch
        train_step(images, labels)
    test_loss = float(tf.add_n([test_step(a, b) for a, b in test_ds]))
    history.append([round(float(train_accuracy.result()), 5), round(test_loss, 5), int(step.numpy())])
    train_accuracy.reset_state()
print(json.dumps(history))
