"""``--verify`` proves a fix that passes a tensor into the project's own code (issue 21, items 3 and 4).

``step(x, offset)`` computes ``x + double(offset)`` with ``double`` defined in another module of
the project: the rewriter does not see into it, so RTF003's signature (``offset`` becomes a
tensor) is a verifiable diagnostic, and the run of the program decides.  The program prints its
result on a line that also holds a timing: only the timing is masked, the total is compared,
and the proof says exactly that.  One ``--verify`` run: three TensorFlow processes (the
original, the trial, the original again when the trial's timing differs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

pytestmark = pytest.mark.tf

HELPERS = "def double(v):\n    return v * 2\n"
MAIN = """\
import time

import tensorflow as tf

from helpers import double


@tf.function
def step(x, offset):
    return x + double(offset)


start = time.perf_counter_ns()
total = 0.0
for i in range(6):
    total += float(step(tf.constant(1.0), i))
print(f"total {total:.3f} took {time.perf_counter_ns() - start} ns")
"""
SIGNED = MAIN.replace("@tf.function\n", (
    "@tf.function(input_signature=[\n"
    "    tf.TensorSpec(shape=[], dtype=tf.float32),\n"
    "    tf.TensorSpec(shape=[], dtype=tf.float32),\n"
    "])\n"))


def test_verify_proves_a_tensor_passed_into_a_helper_of_the_project(tmp_path: Path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "helpers.py").write_text(HELPERS)
    (root / "main.py").write_text(MAIN)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    result = subprocess.run(
        [sys.executable, "-m", "retrace_fix", "--verify", "--format", "json", ".", "--", sys.executable, "main.py"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (root / "main.py").read_text() == SIGNED  # the signature proven by the run is written
    assert (root / "helpers.py").read_text() == HELPERS
    verify = json.loads(result.stdout)["verify"]
    assert [(f["code"], f["status"]) for f in verify["fixes"]] == [("RTF003", "verified")]
    # the timing on the line is masked, the total on the same line is compared
    assert verify["fixes"][0]["proof"] == "exit 0 as the original, stdout: 1 line, 1 varying number masked, traces 6 → 1"
    assert verify["compared"] == "stdout (1 varying number masked)"
    assert verify["runs"] == 3
