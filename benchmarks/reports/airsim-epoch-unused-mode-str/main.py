import json

import numpy as np
import tensorflow as tf

from train_bc import train, train_loss  # noqa: E402

rng = np.random.default_rng(0)
images = rng.normal(size=(40, 6)).astype("float32")
labels = rng.normal(size=(40, 2)).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).batch(16)  # 16, 16, 8
training_mode = "latent"
history = []
for epoch in range(4):
    for train_images, train_labels in train_ds:
        train(train_images, train_labels, epoch, training_mode)
    history.append(float(train_loss.result()))
    train_loss.reset_state()
print(json.dumps(history))
