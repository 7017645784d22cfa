import tensorflow as tf

from input import Trainer

trainer = Trainer(tf.keras.layers.Dense(1), tf.keras.optimizers.SGD(0.01))
loss_fn = tf.keras.losses.MeanSquaredError()
for batch in (4, 6, 8):
    x, y = tf.ones([batch, 3]), tf.zeros([batch, 1])
    print(round(float(trainer.train_step(x, y, loss_fn)), 5), round(float(trainer.evaluate(x, y, loss_fn)), 5))
