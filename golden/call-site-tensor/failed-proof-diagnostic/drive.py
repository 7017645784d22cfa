import numpy as np

from input import checked, run

print([np.round(r.numpy(), 5).tolist() for r in run()])
print("traces", checked.experimental_get_tracing_count())
