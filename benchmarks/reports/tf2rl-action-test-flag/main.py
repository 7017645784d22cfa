import json

import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
from policy import VPG  # noqa: E402

rng = np.random.default_rng(0)
agent = VPG(obs_dim=4, n_actions=3)
actions = []
for episode in range(3):
    for test in (False, True):
        obs = rng.normal(size=(4,))  # float64 observations from the environment
        actions.append(int(agent.get_action(obs, test=test)))
        batch = rng.normal(size=(5, 4))
        actions.extend(int(a) for a in agent.get_action(batch, test=test))
print(json.dumps(actions))
