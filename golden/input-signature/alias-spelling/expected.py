import tensorflow as tflow
from tensorflow import function as compiled


@compiled(input_signature=[tflow.TensorSpec(shape=[None, 3], dtype=tflow.float32)])
def mean_row(x):
    return tflow.reduce_mean(x, axis=0)


@tflow.function(input_signature=[
    tflow.TensorSpec(shape=[None, 3], dtype=tflow.float32),
])
def row_sums(x):
    return tflow.reduce_sum(x, axis=1)
