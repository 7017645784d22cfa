import numpy as onp
import tensorflow.compat.v2 as tf2
from numpy import random as npr
from tensorflow import function as tfn


@tfn
def a(x):
    return x + onp.random.rand() + npr.randint(3)


@tf2.function(reduce_retracing=True)
def b(x):
    return tf2.zeros([x.shape[0]])
