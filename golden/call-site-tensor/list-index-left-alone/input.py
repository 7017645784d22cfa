"""An int index of a Python list must stay a Python int.

`heads[index]` picks a layer from a list (tensorflow/tensorflow#58965) and `scales[index]`
an item of a Python list: a list takes no tensor index (TypeError), so neither RTF003 nor
RTF005 may make `index` a tensor.
"""

import tensorflow as tf

heads = [tf.keras.layers.Dense(2, name=f"head_{i}") for i in range(3)]
for head in heads:
    head.build((None, 4))


@tf.function
def compute_single_output(heads, index, inputs):
    return heads[index](inputs)


@tf.function
def scaled(model, scales, index, inputs):
    return model(inputs) * scales[index]


def run(inputs):
    first = [compute_single_output(heads, index, inputs) for index in (0, 2, 1)]
    return first + [scaled(heads[0], [1.0, 2.0, 3.0], index, inputs) for index in range(3)]
