"""Detection train step fed dense box tensors whose box count differs per image batch (rebuilt from keras-team/keras-cv#886)."""

import tensorflow as tf

tf.keras.utils.set_random_seed(0)
backbone = tf.keras.Sequential([tf.keras.Input(shape=(8, 8, 3)), tf.keras.layers.Conv2D(4, 3), tf.keras.layers.GlobalAveragePooling2D()])
box_head = tf.keras.layers.Dense(4)
box_head.build((None, 4))
variables = backbone.trainable_variables + box_head.trainable_variables
optimizer = tf.keras.optimizers.SGD(0.05)
optimizer.build(variables)


@tf.function(input_signature=[
    tf.TensorSpec([None, 8, 8, 3], tf.float32),
    tf.TensorSpec([None, None, 4], tf.float32),
    tf.TensorSpec([None, None], tf.int32),
])
def train_step(images, boxes, classes):
    with tf.GradientTape() as tape:
        features = backbone(images)
        predicted = box_head(features)[:, tf.newaxis, :]
        valid = tf.cast(classes >= 0, tf.float32)[..., tf.newaxis]
        loss = tf.reduce_sum(valid * tf.square(predicted - boxes)) / tf.maximum(tf.reduce_sum(valid), 1.0)
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    return loss
