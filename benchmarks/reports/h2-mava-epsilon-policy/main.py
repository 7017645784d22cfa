import json

import numpy as np

from executor import NUM_ACTIONS, FeedForwardExecutor

rng = np.random.default_rng(0)
executor = FeedForwardExecutor()
observation = rng.normal(size=(1, 4)).astype("float32")  # numpy observation from the environment
actions = []
for step in range(12):
    epsilon = max(0.1, 1.0 - 0.1 * step)
    coin = rng.uniform(size=(1,)).astype("float32")
    random_action = rng.integers(0, NUM_ACTIONS, size=(1,)).astype("int32")
    action = executor.select_action(observation, epsilon, coin, random_action)
    actions.append(int(action.numpy()[0]))
    observation = (0.9 * observation + 0.1 * rng.normal(size=(1, 4))).astype("float32")
print(json.dumps(actions))
