import tensorflow as tflow
from tensorflow import function as compiled


@compiled
def mean_row(x):
    return tflow.reduce_mean(x, axis=0)


@tflow.function()
def row_sums(x):
    return tflow.reduce_sum(x, axis=1)
