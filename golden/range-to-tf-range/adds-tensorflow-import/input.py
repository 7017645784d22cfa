from tensorflow import function, shape, zeros


@function
def row_total(x):
    total = zeros([])
    for i in range(shape(x)[0]):
        total += x[i]
    return total
