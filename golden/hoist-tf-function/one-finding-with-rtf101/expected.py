import tensorflow as tf

SCALE = 2.0


@tf.function
def scaled(x):
    return x * SCALE


def animate(frames):
    return [scaled(f) for f in frames]


def project(x, num_hash):
    @tf.function
    def func(v):
        return tf.one_hot(tf.cast(v, tf.int32) % num_hash, num_hash)

    return func(x)


def main(videos):
    for frames in videos:
        animate(frames)
        project(frames[0], 8)


for batch in range(3):
    @tf.function
    def per_batch(v):
        return v + batch

    per_batch(tf.constant(1.0))
