import tensorflow as tf

from input import Batch, bag_of_words, pair_sum, weighted

for rows in (2, 3):
    tokens = tf.ragged.constant([[1, 2, 3]] * (rows - 1) + [[4]])
    features = tf.sparse.from_dense(tf.eye(rows, 5))
    print([t.numpy().tolist() for t in bag_of_words(tokens, features)])
    batch = Batch(tf.ones([rows, 4]), tf.ones([rows]))
    extras = {"bias": tf.constant(0.5), "scales": [tf.ones([rows])]}
    print(weighted(batch, extras).numpy().tolist())
    print(float(pair_sum((tf.ones([rows]), tf.ones([rows, 2])))))
