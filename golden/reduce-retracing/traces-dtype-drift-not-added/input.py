"""Seed 003, Example 2: float32 then float64 inputs; reduce_retracing cannot fold a dtype change."""
import tensorflow as tf


@tf.function
def train_step_2(x, model):
    return tf.reduce_sum(model(tf.cast(x, tf.float32)))
