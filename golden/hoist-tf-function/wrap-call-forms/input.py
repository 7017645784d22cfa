import tensorflow as tf


def leapfrog_chain(state, num_steps=10, step_size=0.1):
    for _ in range(num_steps):
        state = state - step_size * state  # gradient of x**2 / 2
    return state


def run_chunk(state):
    return tf.function(leapfrog_chain)(state)


def run_chunk_twice(state):
    chain = tf.function(leapfrog_chain, reduce_retracing=True)
    return chain(state) + chain(state * 2.0)


def compile_chain():
    return tf.function(leapfrog_chain)


def main(state):
    trace = []
    for chunk in range(3):
        state = run_chunk(state)
        trace.append(run_chunk_twice(state))
        trace.append(compile_chain()(state))
    return trace
