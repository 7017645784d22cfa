import tensorflow as tf


def training(dataset, epochs):
    # rebuilt from the pattern of a distributed training loop: the step closes over the strategy
    strategy = tf.distribute.get_strategy()
    weights = tf.ones([4])

    def train_step(batch):
        return tf.reduce_sum(batch * weights)

    @tf.function
    def dist_train_step(batch):
        return strategy.run(train_step, args=(batch,))

    return [dist_train_step(batch) for batch in dataset for _ in range(epochs)]


def refine(weights_table, bins):
    # the captured tensor is why it must be traced again: moving it out would freeze the first one
    wei_t = tf.constant(weights_table)

    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.int32)])
    def while_body(n_bin):
        return wei_t[n_bin]

    return [while_body(b) for b in bins]


def main(datasets, tables):
    for dataset in datasets:
        training(dataset, 2)
    for table in tables:
        refine(table, [0, 1])
