"""The recorder under multiprocessing and threads, against real TensorFlow (issue 14, item 6).

One recorded program covers every way a trace can be made away from the main
thread of the main process: ``fork``, ``spawn`` and ``forkserver`` pool
workers (``forkserver`` is Linux's default start method from Python 3.14), a
worker thread, and a child forked while another thread holds the recorder's
lock.  Each traces its own shapes, so the trace file says which ones were
recorded.  (Before: forkserver children lost their shard writer, a fork pool
recorded only the workers that happened to be terminated, and a fork at the
wrong moment could hang the child on a lock.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

from retrace_fix.traces.model import load_trace_file
from tests.support.tree_state import changed, digest

pytestmark = pytest.mark.tf

PROGRAM = '''\
import multiprocessing as mp
import os
import sys
import threading

import tensorflow as tf


@tf.function
def f(x):
    return x * 2


def work(n):
    f(tf.ones([n]))
    return n


def in_a_thread():
    f(tf.ones([5]))


def fork_while_the_recorder_lock_is_held():
    function_stats = sys.modules["retrace_fix.traces.function_stats"]
    held, release = threading.Event(), threading.Event()

    def hold():
        with function_stats._STATS_LOCK:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    try:
        process = mp.get_context("fork").Process(target=work, args=(41,))
        process.start()
        process.join(60)
        assert process.exitcode == 0, process.exitcode
    finally:
        release.set()
        holder.join()


if __name__ == "__main__":
    with open("shard-dir.txt", "w") as note:
        note.write(os.environ["RETRACE_FIX_SHARD_DIR"])
    # TensorFlow is not fork-safe once it has run something (its thread pools do not survive
    # a fork): the forks come first, while only TensorFlow's import has happened here.
    fork_while_the_recorder_lock_is_held()
    for method, sizes in (("fork", [11, 12]), ("spawn", [21, 22]), ("forkserver", [31, 32])):
        with mp.get_context(method).Pool(1) as pool:
            assert pool.map(work, sizes) == sizes
    f(tf.ones([1]))
    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    print("done")
'''


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    project = tmp_path_factory.mktemp("mp")
    (project / ".git").mkdir()
    (project / "prog.py").write_text(PROGRAM)
    before = digest(project.parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    # a process with a time limit: a recorder that hangs fails this test instead of the whole run
    # (killing `record` stops its command: tests/attack/test_record_lifecycle.py)
    proc = subprocess.run([sys.executable, "-m", "retrace_fix", "record", "-o", "traces.json", "--", sys.executable,
                           "prog.py"], cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=300)
    return proc.returncode, project, before


def test_every_start_method_and_thread_is_recorded(recorded):
    code, project, _ = recorded
    assert code == 0
    (function,) = list(load_trace_file(str(project / "traces.json")))
    shapes = sorted(t.args["x"]["shape"][0] for t in function.traces)
    assert shapes == [1, 5, 11, 12, 21, 22, 31, 32, 41]
    assert function.calls == 9


def test_only_the_trace_file_is_written_and_no_shard_directory_is_left(recorded):
    _, project, before = recorded
    assert changed(before, digest(project.parent)) == [f"{project.name}/shard-dir.txt", f"{project.name}/traces.json"]
    shard_dir = Path((project / "shard-dir.txt").read_text())
    assert shard_dir.name.startswith("retrace-fix-shards-") and not shard_dir.exists()
