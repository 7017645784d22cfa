"""Text detector run on images of different sizes (rebuilt from faustomorales/keras-ocr#63)."""

import tensorflow as tf

backbone = tf.keras.Sequential([
    tf.keras.Input(shape=(None, None, 3)),
    tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
    tf.keras.layers.Conv2D(2, 3, padding="same"),
])


@tf.function(input_signature=[tf.TensorSpec([2, None, None, 3], tf.float32)])
def detect(images):
    heatmaps = tf.sigmoid(backbone(images))
    return tf.reduce_mean(heatmaps, axis=[1, 2])
