"""Variables created on the first call: TensorFlow traces that call twice (variable creation, then
without), and every re-created layer does it again; padded batches of two lengths."""
import json

import tensorflow as tf


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = None

    @tf.function
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([x.shape[-1], 1]))
        return tf.matmul(x, self.w)


def main():
    out = []
    layer = Dense()
    for n in (4, 4, 8, 4, 8):
        out.append(float(tf.reduce_sum(layer(tf.ones([n, 3])))))
    for _ in range(2):
        fresh = Dense()
        out.append(float(tf.reduce_sum(fresh(tf.ones([2, 3])))))
    print(json.dumps({"out": out, "traces": layer.__call__.experimental_get_tracing_count()}))


main()
