"""Overhead of the trace recorder: per call on a steady-state loop, and of the proofs.

1. Per call: runs a tf.function step of about 100 us (already traced) for N
   calls with and without the recorder installed, alternating many rounds in
   one process (so machine noise hits both sides alike), and prints the median
   of the paired ratios (target: <= 1.01).  It also times the wrapper alone
   against a no-op stand-in, which is the recorder's intrinsic per-call cost.
2. Proofs: a recorded run of that step (a few batch sizes, so it retraces,
   then N steady calls) and the proofs at its end (``Recorder.prove()``, what
   ``retrace-fix record`` does at exit): their time as a share of the recorded
   run (target: <= 5 %).  Usage::

    python benchmarks/recorder_overhead.py [--calls 2000] [--rounds 40] [--size 96]
                                           [--run-calls 3000] [--retraces 4]
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
    parser.add_argument("--size", type=int, default=96, help="the step's matrices are SIZE x SIZE (~100 us)")
    parser.add_argument("--run-calls", type=int, default=3000, help="steady calls of the recorded run")
    parser.add_argument("--retraces", type=int, default=4, help="batch sizes of the recorded run")
    options = parser.parse_args()

    import tensorflow as tf

    from retrace_fix.traces import recorder

    @tf.function
    def step(x, y):
        h = tf.tanh(tf.matmul(x, y))
        return tf.reduce_sum(tf.matmul(h, y) + 1.0)

    x = tf.ones([options.size, options.size])
    y = tf.ones([options.size, options.size])

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
    print(f"wrapper alone: {_wrapper_cost_ns():.0f} ns/call")
    print("target: ratio <= 1.01")
    _proof_share(tf, recorder, options)
    return 0


def _proof_share(tf, recorder, options) -> None:
    """Time a recorded run that retraces, then the proofs at its end; print their share."""
    here = os.path.dirname(os.path.abspath(__file__))

    @tf.function
    def train_step(x, w):
        h = tf.tanh(tf.matmul(x, w))
        return tf.reduce_sum(tf.matmul(h, w) + 1.0)

    w = tf.ones([options.size, options.size])
    steady = tf.ones([options.size, options.size])
    batches = [tf.ones([options.size + 8 * (i + 1), options.size]) for i in range(options.retraces)]
    active = recorder.Recorder(project_root=here)  # this file is project code: its traces are recorded
    recorder.activate(active)
    try:
        start = time.perf_counter()
        for batch in batches:
            train_step(batch, w)
        for _ in range(options.run_calls):
            train_step(steady, w)
        run = time.perf_counter() - start
        start = time.perf_counter()
        active.prove()
        proofs = time.perf_counter() - start
        (function,) = [f for f in active.trace_set() if f.name == "train_step"]
    finally:
        recorder.deactivate(active)
    results = sorted({p.result for p in function.proofs.values()})
    print(f"recorded run: {run:.3f} s ({function.total_traces} traces, {function.calls} calls); "
          f"proofs: {proofs:.3f} s for {len(function.proofs)} candidates ({', '.join(results)})")
    print(f"proofs share of the recorded run: {proofs / run:.1%} (target <= 5%)")


def _wrapper_cost_ns(number: int = 200_000) -> float:
    """Cost of the patched ``__call__`` around a no-op, i.e. what the recorder adds per call."""
    from retrace_fix.traces.tf_patching import _make_hook

    class FakeFunction:
        _function_cache: list = []

    def original(self, *args, **kwds):
        return None

    wrapped = _make_hook(original, "__call__")
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
