import numpy as np
import tensorflow as tf


@tf.function
def process_data(data):
    return tf.reduce_sum(data)


# seed 001: retracing occurs because 'data' has different shapes
process_data(tf.constant([1, 2, 3]))
process_data(tf.constant([1, 2, 3, 4, 5]))
process_data(tf.constant([1, 2]))


@tf.function
def simple_computation(input_tensor):
    return tf.reduce_sum(input_tensor)


input_1 = tf.random.normal([10, 20])
input_2 = tf.random.normal([10, 21])
print("First call:", simple_computation(input_1))
print("Second call:", simple_computation(input_2))


@tf.function
def train_step(x, y):
    return tf.reduce_mean(x) + tf.cast(tf.reduce_sum(y), tf.float32)


for epoch in range(2):
    for batch_size in [10, 20, 10, 30]:
        x = tf.random.normal((batch_size, 5))
        y = np.random.randint(0, 10, size=batch_size)
        loss = train_step(x, y)
