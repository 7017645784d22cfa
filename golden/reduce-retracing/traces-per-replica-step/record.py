"""How traces.json was recorded (two logical CPUs must be configured before TensorFlow starts,
which the in-process semantic runner cannot do, so this case has no drive.py)::

    retrace-fix record -o traces.json -- python record.py
"""
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)

from input import distributed_step, strategy  # noqa: E402

for batch in (8, 6, 4, 2):
    dataset = tf.data.Dataset.from_tensors(tf.ones([batch, 4]))
    for x in strategy.experimental_distribute_dataset(dataset):
        print(float(distributed_step(x)))
