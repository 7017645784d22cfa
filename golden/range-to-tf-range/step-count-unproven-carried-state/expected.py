import tensorflow as tf

STEP_COUNTS = [3, 5, 8]


@tf.function
def run_steps(state, n):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for step in range(0, n, 1):
        state = state * 0.5 + tf.cast(step, tf.float32)
        ta = ta.write(step, tf.reduce_sum(state))
    return state, ta.stack()


def main(state):
    outputs = []
    for steps in [3, 5, 8]:
        outputs.append(run_steps(state, steps))
    counter = 1
    while counter < 4:
        outputs.append(run_steps(state, counter))
        counter += 1
    return outputs
