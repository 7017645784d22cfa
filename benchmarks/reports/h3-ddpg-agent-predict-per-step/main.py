import json

import numpy as np

from agent import Agent

rng = np.random.default_rng(0)
agent = Agent(state_dim=3, action_dim=1)
state = rng.normal(size=3).astype("float32")
actions, losses = [], []
for step in range(12):
    action = agent.act(state)
    reward = float(-np.sum(state ** 2) - 0.1 * float(action[0]) ** 2)
    losses.append(round(agent.learn(state, action, reward), 5))
    actions.append(round(float(action[0]), 5))
    state = (0.8 * state + 0.2 * rng.normal(size=3)).astype("float32")
print(json.dumps({"actions": actions, "losses": losses}))
