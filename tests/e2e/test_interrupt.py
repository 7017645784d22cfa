"""Ctrl-C during a parallel run: a clear message, exit 130, workers stopped, nothing written.

Pure rewriter: no TensorFlow import.  The interrupt is sent while every worker is
inside a (deliberately slow) file, so no timing is asserted.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from retrace_fix.engine import pool
from retrace_fix.cli import main

RELAX_SRC = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"


@pytest.fixture()
def slow_tree(tmp_path: Path, monkeypatch) -> list[Path]:
    for index in range(12):
        (tmp_path / f"m{index:02}.py").write_text(RELAX_SRC)
    marker = tmp_path / "started"
    real = pool.process_file

    def process_file(job, options):  # runs in the forked workers
        marker.touch()
        time.sleep(30)
        return real(job, options)

    monkeypatch.setattr(pool, "process_file", process_file)  # what the workers run
    monkeypatch.chdir(tmp_path)
    return sorted(tmp_path.glob("m*.py"))


def _interrupt_once_a_worker_runs(marker: Path) -> threading.Thread:
    def fire():
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=fire, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_stops_the_workers_and_writes_nothing(slow_tree, tmp_path, capsys, ctrl_c_delivered):
    _interrupt_once_a_worker_runs(tmp_path / "started")
    with pytest.raises(SystemExit) as exit_info:
        main(["--jobs", "2", "."])

    assert exit_info.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "retrace-fix: interrupted"
    assert all(path.read_text() == RELAX_SRC for path in slow_tree)  # fix mode, but nothing written
    assert multiprocessing.active_children() == []  # the workers did not finish their 30 s files
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the CLI's handler is removed
