import tensorflow as tf

from input import weighted_loss

x = tf.constant([0.5, -1.25, 2.0])
for step in range(4):
    weights = [0.25 * (step + 1), 0.5, 1.0 / (step + 1)]
    bounds = (-1.0 - step * 0.25, 1.0 + step * 0.25)
    print(round(float(weighted_loss(x, weights, bounds)), 5))
