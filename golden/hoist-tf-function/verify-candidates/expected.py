import tensorflow as tf


@tf.function
def func(x, *, hash_scale, num_hash):
    projected = tf.math.floormod(tf.cast(x * hash_scale, tf.int32), num_hash)
    return tf.one_hot(projected, num_hash)


def fused_project(features, num_hash, hash_scale):
    return func(features, hash_scale=hash_scale, num_hash=num_hash)


@tf.function
def apply(v, *, layer):
    return layer(v)


def per_layer(x, layers):
    outputs = []
    for layer in layers:
        outputs.append(apply(x, layer=layer))
    return outputs


def scaled(x, factor):
    @tf.function(jit_compile=factor > 1)
    def step(v):
        return v * 2.0

    return step(x)


def main(batches, layers):
    for batch in batches:
        fused_project(batch, 8, 7.0)
        per_layer(batch, layers)
        scaled(batch, 2)


SCALE = 2.0


@tf.function
def doubled(x):
    return x * SCALE


def make():
    return doubled


def use_made(batches):
    return [make()(b) for b in batches]


class Sampler:
    def __init__(self, counts):
        self.counts = counts

    # uses the instance and a local: the candidate is a method taking the local as a keyword
    @tf.function
    def sample(self, state, *, num_steps):
        return tf.while_loop(lambda i, x: i < num_steps, lambda i, x: (i + 1, x * self.counts), (0, state))[1]

    def sampling(self, init, num_steps):
        return self.sample(init, num_steps=num_steps)


def run_chains(sampler, inits):
    for init in inits:
        sampler.sampling(init, 30)
