import tensorflow as tf


def leapfrog_chain(state, num_steps=10, step_size=0.1):
    for _ in range(num_steps):
        state = state - step_size * state
    return state


def run_chunk(state):
    return tf.function(lambda: leapfrog_chain(state, 5))()


def run_fixed():
    return tf.function(lambda: leapfrog_chain(1.0, 5))()


def main(state):
    for chunk in range(3):
        state = run_chunk(state) + run_fixed()
    return state
