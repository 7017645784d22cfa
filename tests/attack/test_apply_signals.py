"""SIGTERM during ``apply`` over many files (issue 26, item 6): the set is finished, no temp file is left.

Before: SIGTERM during ``apply`` over 2,000 files left 136 patched and a temporary file.
Now SIGTERM (and SIGHUP) are held back during the write phase as Ctrl-C is: every file
of the set is written, then the signal is delivered (the process ends, killed by it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from retrace_fix.patch.diffs import unified_diff

REPO = Path(__file__).resolve().parents[2]
FILES = 200

SCRIPT = """\
import os, signal, sys
from retrace_fix.patch import apply_files as patches

real_write, calls = patches._write, []

def write_then_signal(entry):
    calls.append(entry.relpath)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.{signal})  # as `kill` would, in the middle of the set
    return real_write(entry)

patches._write = write_then_signal
sys.exit(patches.apply_patches([sys.argv[1]], __import__("pathlib").Path(sys.argv[2])))
"""


@pytest.mark.parametrize("signame", ["SIGTERM"])  # SIGHUP takes the same path (_HELD_SIGNALS)
def test_sigterm_during_apply_finishes_the_set_and_leaves_no_temp_file(tmp_path, signame):
    root = tmp_path / "root"
    root.mkdir()
    diff = []
    for index in range(FILES):
        (root / f"m{index}.py").write_text("x = 1\n")
        diff.append(unified_diff("x = 1\n", "x = 2\n", f"m{index}.py", quoted=True))
    patch = tmp_path / "all.patch"
    patch.write_text("".join(diff))
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(signal=signame), str(patch), str(root)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == -getattr(signal, signame), proc.stderr  # the signal still ends the process
    texts = {path.read_text() for path in root.glob("m*.py")}
    assert texts == {"x = 2\n"}, "the set was cut off halfway"
    assert sorted(p.name for p in root.iterdir() if not p.name.endswith(".py")) == []  # no temp file
