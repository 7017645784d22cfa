from tensorflow import function, reduce_sum


@function
def total(values):
    return reduce_sum(values)
