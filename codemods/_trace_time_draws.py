"""Calls whose value is drawn once per trace: clocks and random numbers.

A tf.function body runs its Python code only while tracing, so ``time.time()``
or ``random.random()`` there is frozen into each graph (RTF102 reports it), and
a fix that changes how often a function traces changes how often it is drawn
(the trace-driven fixes say so).
"""

from __future__ import annotations


#: clocks a tf.function body reads while tracing (RTF102), and what to use in graph code instead
CLOCKS = {
    "time.time": "tf.timestamp()",
    "time.time_ns": "tf.timestamp()",
    "time.perf_counter": "tf.timestamp()",
    "time.perf_counter_ns": "tf.timestamp()",
    "time.monotonic": "tf.timestamp()",
    "time.monotonic_ns": "tf.timestamp()",
    "time.process_time": "tf.timestamp()",
    "time.clock": "tf.timestamp()",
    "datetime.datetime.now": "tf.timestamp()",
    "datetime.datetime.utcnow": "tf.timestamp()",
    "datetime.datetime.today": "tf.timestamp()",
    "datetime.date.today": "tf.timestamp()",
}


def draws_at_trace_time(qualified: str | None) -> bool:
    """A clock or random draw: its value is frozen into each trace, so a fix that changes how often the
    function traces changes how often it is drawn, and with it the results."""
    return bool(qualified) and (qualified in CLOCKS or qualified.startswith(("random.", "numpy.random.")))
