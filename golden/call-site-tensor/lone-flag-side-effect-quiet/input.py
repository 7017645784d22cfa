import tensorflow as tf

explored = []


@tf.function
def act(q, explore):
    # a branch with a Python side effect: under tf.cond it would run for the branch not taken too
    if explore:
        explored.append(1)
        return tf.argmin(q, axis=-1, output_type=tf.int32)
    return tf.argmax(q, axis=-1, output_type=tf.int32)


def run(qs):
    return [act(q, step % 4 != 3) for step, q in enumerate(qs)]
