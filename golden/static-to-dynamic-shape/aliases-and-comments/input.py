from tensorflow import function, reshape, zeros


@function
def flatten(x):
    # flatten each example
    return reshape(x, [x.get_shape()[0], -1])  # batch first


@function(reduce_retracing=True)
def zeros_like_rows(x):
    return zeros([x.shape.as_list()[0],  # rows
                  3])
