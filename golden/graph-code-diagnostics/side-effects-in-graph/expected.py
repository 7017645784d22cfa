import datetime
import random
import time
from datetime import datetime as dt
from time import perf_counter as now

import numpy as np
import tensorflow as tf


@tf.function
def train_step_3(x):
    random_value = random.random()  # Non-TF operation
    start = time.time()
    noise = np.random.normal(size=3)
    return x * random_value + start + noise


@tf.function(reduce_retracing=True)
def stamped(x):
    def helper():
        return dt.now().timestamp() + now()

    return x + helper() + datetime.date.today().year


def plain(x):
    return x + time.time()


wrapped = tf.function(lambda x: x + random.uniform(0, 1))


def body(x):
    return x * random.gauss(0, 1)


compiled = tf.function(body)
