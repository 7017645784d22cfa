"""A branch on a Python bool that also prints (a Python side effect) while tracing.

As a tensor, `if verbose:` becomes a tf.cond: both branches are traced, so the
`print(...)` runs for the branch not taken too.  The proof traces, but the fix
changes what the program does: it stays unsafe, with the reason.
"""

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def step(model, x, scale, verbose):
    y = model(x) * scale
    if verbose:
        print("verbose step")
        y = y + 1.0
    return y


def run(x):
    return [step(model, x, s, v) for s in (0.5, 1.5) for v in (False, True)]
