import tensorflow as tf


class MyData:
    def __init__(self, value):
        self.value = value


@tf.function
def use_custom_class(data):
    return data.value * 2


data1 = MyData(10)
data2 = MyData(10)  # Even though values are same, they are different objects

use_custom_class(data1)
use_custom_class(data2)  # Retrace due to different object instances
