"""The suite without TensorFlow: the ``tests/**/*_tf.py`` modules are skipped, not errors, and a
``-m "not tf"`` run never imports them (tests/conftest.py).

pytest runs in a child process whose ``sys.modules["tensorflow"]`` is ``None``: ``import
tensorflow`` raises ModuleNotFoundError there, as on a machine without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
TF_MODULES = sorted(path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*_tf.py"))
WITHOUT_TF = "import sys; sys.modules['tensorflow'] = None; import pytest; sys.exit(pytest.main(sys.argv[1:]))"


def pytest_without_tensorflow(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_TF, "-n", "0", "-p", "no:cacheprovider", "-q", "-rs", *args],
        cwd=TESTS.parent, capture_output=True, text=True, timeout=300,
    )


def test_every_tf_module_is_marked_tf():
    assert TF_MODULES
    for name in TF_MODULES:
        assert re.search(r"^pytestmark = pytest\.mark\.tf$", (TESTS / name).read_text(encoding="utf-8"), re.M), name


def test_tf_modules_are_skipped_not_errors_without_tensorflow():
    proc = pytest_without_tensorflow("-m", "tf", *(f"tests/{name}" for name in TF_MODULES))
    # every test skipped or deselected: "no tests ran", not an error (exit 1, 2 or 3)
    assert proc.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, proc.stdout + proc.stderr
    skipped = re.findall(r"^SKIPPED \[1\] tests/(\S+_tf\.py):\d+: could not import 'tensorflow'", proc.stdout, re.M)
    assert sorted(skipped) == TF_MODULES
    assert re.search(rf"^{len(TF_MODULES)} skipped in ", proc.stdout, re.M), proc.stdout
    assert "error" not in proc.stdout.lower()


def test_a_not_tf_run_does_not_import_the_tf_modules():
    proc = pytest_without_tensorflow("--collect-only", "-m", "not tf", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "_tf.py" not in proc.stdout and "SKIPPED" not in proc.stdout
    assert re.search(r"^\d+ tests collected in [\d.]+s$", proc.stdout, re.M), proc.stdout[-2000:]
