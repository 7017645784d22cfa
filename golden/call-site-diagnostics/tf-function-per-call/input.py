import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])


def make_predictor(m):
    @tf.function
    def predict(x):
        return m(x, training=False)

    return predict


def evaluate(batches):
    results = []
    for batch in batches:
        results.append(make_predictor(model)(batch))
    return results


def run(batches):
    for batch in batches:
        @tf.function(reduce_retracing=True)
        def step(x):
            return model(x, training=False)

        step(batch)
        doubled = tf.function(lambda v: v * 2)(batch)
    return [tf.function(model)(b) for b in batches]


def compile_step(fn):
    return tf.function(fn)


steps = [compile_step(lambda v, k=k: v + k) for k in range(3)]
