import tensorflow as tf

from input import train_step

model = tf.keras.layers.Dense(2)
optimizer = tf.keras.optimizers.SGD(0.1)
for batch in (4, 8):
    print(float(train_step(tf.ones([batch, 3]), model, optimizer)))
