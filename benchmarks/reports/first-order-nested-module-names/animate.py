"""Animation helpers defined as tf.functions inside animate() (rebuilt from lshug/first-order-model-tf#22)."""

import tensorflow as tf

FRAME_SCALE = 0.5


def animate(source, driving):
    @tf.function
    def slice_driving(frames, start):
        return frames[start:start + 2] * FRAME_SCALE

    @tf.function
    def next_batch(src, drv):
        return tf.reduce_mean(src) + drv

    outputs = []
    for start in range(0, 4, 2):
        outputs.append(next_batch(source, slice_driving(driving, start)))
    return tf.concat(outputs, 0)
