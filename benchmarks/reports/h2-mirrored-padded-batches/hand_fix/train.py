"""Custom MirroredStrategy loop over padded_batch text batches of varying length (rebuilt from tensorflow/tensorflow#29911)."""

import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
tf.keras.utils.set_random_seed(0)

GLOBAL_BATCH = 8
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(None,), dtype="int32"),
        tf.keras.layers.Embedding(50, 8),
        tf.keras.layers.GlobalAveragePooling1D(),
        tf.keras.layers.Dense(1),
    ])
    optimizer = tf.keras.optimizers.SGD(0.1)
    optimizer.build(model.trainable_variables)


def step_fn(tokens, labels):
    with tf.GradientTape() as tape:
        logits = tf.squeeze(model(tokens), -1)
        per_example = tf.nn.sigmoid_cross_entropy_with_logits(labels, logits)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss


@tf.function(reduce_retracing=True)
def distributed_train_step(tokens, labels):
    per_replica = strategy.run(step_fn, args=(tokens, labels))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
