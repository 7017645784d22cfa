"""A MirroredStrategy step (tensorflow/tensorflow#29911): its argument is a PerReplica value whose
components change shape with the batch; they generalise like tensors, so reduce_retracing=True
folds the batch sizes (no input_signature written here can name a PerReplica spec)."""
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    weights = tf.Variable([[1.0], [2.0], [3.0], [4.0]])


def replica_step(x):
    return tf.reduce_sum(tf.matmul(x, weights))


@tf.function
def distributed_step(x):
    per_replica = strategy.run(replica_step, args=(x,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
