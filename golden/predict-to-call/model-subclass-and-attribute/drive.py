import numpy as np
import tensorflow as tf

from input import Agent, Tower

x = tf.reshape(tf.range(8, dtype=tf.float32), [4, 2])
tower = Tower()
reference = tower(x, training=False).numpy()
np.testing.assert_allclose(tower.serve(x).numpy(), reference, rtol=1e-6)
agent = Agent()
expected = agent.policy(x, training=False).numpy() + agent.critic(x, training=False).numpy()
np.testing.assert_allclose(agent.act(x).numpy(), expected, rtol=1e-6)
print("result", np.round(reference, 5).tolist(), np.round(expected, 5).tolist())
