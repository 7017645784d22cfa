"""Token tagger trained one document at a time, documents of different lengths (rebuilt from tensorflow/tensorflow#38002)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
FEATURES = 8
inputs = tf.keras.Input(shape=(None, FEATURES))
hidden = tf.keras.layers.Conv1D(12, 5, padding="same", activation="relu")(inputs)
heads = [tf.keras.layers.Conv1D(3, 5, padding="same", activation="softmax", name=name)(hidden) for name in ("pos", "ner")]
model = tf.keras.Model(inputs, heads)
loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
optimizer = tf.keras.optimizers.Adam(1e-2)
optimizer.build(model.trainable_variables)


@tf.function
def train(x, y_pos, y_ner):
    with tf.GradientTape() as tape:
        pos, ner = model(x)
        loss = loss_object(y_pos, pos) + loss_object(y_ner, ner)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss
