import tensorflow as tf


def make_regressor(width):
    tf.keras.utils.set_random_seed(width)
    net = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(width), tf.keras.layers.Dense(1)])
    return net


def fit_split(net, batches, rate=0.1):
    # one tf.function per call, around the model of this call: each split trains a new model
    @tf.function
    def update(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(x) - y))
        for var, grad in zip(net.trainable_variables, tape.gradient(loss, net.trainable_variables)):
            var.assign_sub(rate * grad)
        return loss

    return [float(update(x, y)) for x, y in batches]


def score_split(net, batches):
    evaluate = tf.function(lambda x, y: tf.reduce_mean(tf.abs(net(x) - y)))
    return [float(evaluate(x, y)) for x, y in batches]


def k_fold(splits):
    losses = []
    for index, (train, held_out) in enumerate(splits):
        losses.append(fit_split(make_regressor(index + 2), train))  # a new model per fold
        scorer = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
        losses.append(score_split(scorer, held_out))
    return losses


def seeds_in_one_function(seeds, batches):
    out = []
    for seed in seeds:
        net = make_regressor(seed)  # a new model each iteration, and a tf.function around it

        @tf.function
        def infer(x):
            return net(x)

        out.append([infer(x) for x, _ in batches])
    return out


# near misses: the same model each time, so one function per model would serve every call

shared = make_regressor(4)


def fine_tune(net, batches, rate=0.01):
    @tf.function
    def update(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(x) - y))
        for var, grad in zip(net.trainable_variables, tape.gradient(loss, net.trainable_variables)):
            var.assign_sub(rate * grad)
        return loss

    return [float(update(x, y)) for x, y in batches]


def epochs(batches, count):
    for _ in range(count):
        fine_tune(shared, batches)  # one model, a new tf.function every epoch: a retrace per epoch


def cached_model():
    global _CACHED
    _CACHED = make_regressor(2) if "_CACHED" not in globals() else _CACHED
    return _CACHED


def probe(net, batches):
    @tf.function
    def infer(x):
        return net(x)

    return [infer(x) for x, _ in batches]


def probes(batches, count):
    for _ in range(count):
        probe(cached_model(), batches)  # a cache, not a builder: the same model every time
