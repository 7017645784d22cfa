import tensorflow as tf

SCALE = 2.0


def pipeline(x, offset):
    @tf.function
    def normalise(v):
        return v / tf.reduce_max(tf.abs(v))

    @tf.function
    def project(v):
        return normalise(v) * SCALE

    @tf.function
    def project_shifted(v):
        return project(v) + offset

    return project(x), project_shifted(x)


def main(batches):
    return [pipeline(x, 1.0) for x in batches]
