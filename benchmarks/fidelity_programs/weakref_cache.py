"""A weakref-keyed cache of compiled steps (WeakKeyDictionary) and ids that may be reused."""
import json
import weakref

import tensorflow as tf

_STEPS = weakref.WeakKeyDictionary()


class Model:
    def __init__(self, w):
        self.w = tf.constant(w)


def step_for(model):
    step = _STEPS.get(model)
    if step is None:
        step = _STEPS[model] = tf.function(lambda x: x * model.w)
    return step


@tf.function
def loss(model, x):
    return tf.reduce_sum(x * model.w)


def main():
    out, alive = [], []
    for i in range(5):
        model = Model(float(i))
        out.append(float(tf.reduce_sum(step_for(model)(tf.ones([2])))))
        out.append(float(loss(model, tf.ones([2]))))
        alive.append(len(_STEPS))
        del model
    print(json.dumps({"out": out, "alive": alive, "traces": loss.experimental_get_tracing_count()}))


main()
