"""Per-call overhead of the trace recorder on a steady-state tf.function loop.

Runs the same small tf.function (already traced) for N calls with and without
the recorder installed, alternating many rounds in one process (so machine
noise hits both sides alike), and prints the median of the paired
ratios (target: <= 1.02).  It also times the wrapper alone against
a no-op stand-in, which is the recorder's intrinsic per-call cost.  Usage::

    python benchmarks/recorder_overhead.py [--calls 2000] [--rounds 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=40)
    options = parser.parse_args()

    import tensorflow as tf

    from retrace_fix.traces import recorder

    @tf.function
    def step(x, y):
        return tf.reduce_sum(x * y + 1.0)

    x = tf.ones([8, 8])
    y = tf.ones([8, 8])

    def loop() -> float:
        start = time.perf_counter()
        for _ in range(options.calls):
            step(x, y)
        return time.perf_counter() - start

    for _ in range(200):  # warm-up: trace once, settle the caches
        step(x, y)

    active = recorder.Recorder(project_root=tempfile.gettempdir())
    recorder.activate(active)
    loop()  # warm the patched path (the per-Function stats object)
    recorder.deactivate(active)

    # Alternate blocks (swapping which goes first) and compare each pair, so that
    # load from other processes hits both sides alike.
    plain, recorded, ratios = [], [], []
    for index in range(options.rounds):
        times = {}
        for with_recorder in ((False, True) if index % 2 == 0 else (True, False)):
            if with_recorder:
                recorder.activate(active)
            times[with_recorder] = loop()
            if with_recorder:
                recorder.deactivate(active)
        plain.append(times[False])
        recorded.append(times[True])
        ratios.append(times[True] / times[False])

    base, with_recorder = min(plain), min(recorded)
    print(f"without recorder: {base / options.calls * 1e6:8.2f} us/call (best of {options.rounds} x {options.calls} calls)")
    print(f"with recorder:    {with_recorder / options.calls * 1e6:8.2f} us/call")
    print(f"ratio: {statistics.median(ratios):.3f} (median of paired rounds; best/best {with_recorder / base:.3f})")
    print(f"wrapper alone: {_wrapper_cost_ns(recorder):.0f} ns/call")
    print("target: ratio <= 1.02")
    return 0


def _wrapper_cost_ns(recorder, number: int = 200_000) -> float:
    """Cost of the patched ``__call__`` around a no-op, i.e. what the recorder adds per call."""

    class FakeFunction:
        _function_cache: list = []

    def original(self, *args, **kwds):
        return None

    wrapped = recorder._make_call(original)
    fake = FakeFunction()
    wrapped(fake)
    start = time.perf_counter()
    for _ in range(number):
        original(fake, 1)
    bare = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(number):
        wrapped(fake, 1)
    return (time.perf_counter() - start - bare) / number * 1e9


if __name__ == "__main__":
    raise SystemExit(main())
