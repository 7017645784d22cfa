import numpy as np

import input as case

results, forecaster = case.main()
for value in results:
    print("result", np.round(np.asarray(value), 5).tolist())
print("traces forecast", forecaster.forecast.experimental_get_tracing_count())
