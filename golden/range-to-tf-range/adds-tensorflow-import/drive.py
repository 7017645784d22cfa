import tensorflow as tf

import input as case

for rows in (1, 4):
    print("result", float(case.row_total(tf.ones([rows]) * 1.5)))
print("traces row_total", case.row_total.experimental_get_tracing_count())
