import tensorflow as tf

from input import name_used_in_python, numpy_and_floats, python_ints, rebinds, returned, shadowed, unrolled_with_list

for batch in (4, 6):
    x = tf.ones([batch, 2])
    print(python_ints(x).numpy().sum(), returned(x), rebinds(x).shape.as_list(), shadowed(x).shape.as_list())
    a, b, c = numpy_and_floats(x, tf.ones([batch, 2]))
    print(a.numpy().sum(), b.tolist() if hasattr(b, "tolist") else b, c.shape.as_list())
    print(name_used_in_python(x).shape.as_list(), unrolled_with_list(x).numpy().sum())
