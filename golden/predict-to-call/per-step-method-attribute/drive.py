import numpy as np

from input import Agent, run_episode

agent = Agent(3)
states = np.random.default_rng(0).normal(size=(6, 4)).astype("float32")
print("actions", run_episode(agent, states))
