import numpy as np

from input import policy_logits, rollout, train

rng = np.random.default_rng(0)
for _ in range(2):
    print([np.round(r.numpy(), 5).tolist() for r in rollout(rng, 2)])
    print([np.round(r.numpy(), 5).tolist() for r in train(rng, 2)])
print("traces", policy_logits.experimental_get_tracing_count())
