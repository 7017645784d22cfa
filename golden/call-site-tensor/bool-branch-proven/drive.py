import numpy as np

from input import Agent

rng = np.random.default_rng(0)
agent = Agent()
actions = []
for _ in range(2):
    for test in (False, True):
        actions.append(int(agent.get_action(rng.normal(size=(4,)), test=test)))
        actions.extend(int(a) for a in agent.get_action(rng.normal(size=(5, 4)), test=test))
print(actions)
print("traces", agent._action_body.experimental_get_tracing_count())
