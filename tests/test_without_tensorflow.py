"""The suite without TensorFlow: the ``tests/**/*_tf.py`` modules are skipped, not errors, and a
``-m "not tf"`` run never imports them (tests/conftest.py).

pytest runs in a child process whose ``sys.modules["tensorflow"]`` is ``None``: ``import
tensorflow`` raises ModuleNotFoundError there, as on a machine without it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
TF_MODULES = sorted(path.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*_tf.py"))
#: pytest runs (``json`` list of argument lists) one after another in one process without TensorFlow;
#: each run's output ends with SEPARATOR, and the last line holds per run its exit code and the
#: ``*_tf`` modules whose import was tried during it (a finder put first on ``sys.meta_path`` when
#: the session starts, before pytest's assertion-rewriting one, notes them)
SEPARATOR = "----- end of run -----"
WITHOUT_TF = f"""
import json, sys
sys.modules['tensorflow'] = None
import pytest

class Noted:
    tried = []
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.endswith('_tf'):
            cls.tried.append(name)
        return None
    @classmethod
    def pytest_sessionstart(cls, session):
        sys.meta_path.insert(0, cls)
    @classmethod
    def pytest_sessionfinish(cls, session):
        sys.meta_path.remove(cls)

results = []
for args in json.loads(sys.argv[1]):
    Noted.tried = []
    code = int(pytest.main(args, plugins=[Noted]))
    results.append([code, sorted(set(Noted.tried))])
    print({SEPARATOR!r}, flush=True)
print(json.dumps(results))
"""
COMMON = ["-n", "0", "-p", "no:cacheprovider", "-q", "-rs"]


@pytest.fixture(scope="module")
def runs() -> list[tuple[int, list[str], str]]:
    """One child process for both runs below (each process pays pytest's and the suite's imports):
    first the ``-m "not tf"`` collection of the whole suite, then the ``-m tf`` run of the TF
    modules. Per run: exit code, the ``*_tf`` modules it tried to import, its output."""
    arguments = [[*COMMON, "--collect-only", "-m", "not tf", "tests"],
                 [*COMMON, "-m", "tf", *(f"tests/{name}" for name in TF_MODULES)]]
    proc = subprocess.run([sys.executable, "-c", WITHOUT_TF, json.dumps(arguments)],
                          cwd=TESTS.parent, capture_output=True, text=True, timeout=300)
    *outputs, last = proc.stdout.split(SEPARATOR + "\n")
    assert proc.returncode == 0 and len(outputs) == len(arguments), proc.stdout[-2000:] + proc.stderr
    return [(code, imported, output) for (code, imported), output in zip(json.loads(last), outputs)]


def test_every_tf_module_is_marked_tf():
    assert TF_MODULES
    for name in TF_MODULES:
        assert re.search(r"^pytestmark = pytest\.mark\.tf$", (TESTS / name).read_text(encoding="utf-8"), re.M), name


def test_tf_modules_are_skipped_not_errors_without_tensorflow(runs):
    code, tried, stdout = runs[1]
    assert tried == sorted("tests." + name[:-3].replace("/", ".") for name in TF_MODULES)  # what the finder sees
    # every test skipped or deselected: "no tests ran", not an error (exit 1, 2 or 3)
    assert code == pytest.ExitCode.NO_TESTS_COLLECTED, stdout
    skipped = re.findall(r"^SKIPPED \[1\] tests/(\S+_tf\.py):\d+: could not import 'tensorflow'", stdout, re.M)
    assert sorted(skipped) == TF_MODULES
    assert re.search(rf"^{len(TF_MODULES)} skipped in ", stdout, re.M), stdout
    assert "error" not in stdout.lower()


def test_a_not_tf_run_does_not_import_the_tf_modules(runs):
    code, tried, stdout = runs[0]
    assert code == 0, stdout
    assert "_tf.py" not in stdout and "SKIPPED" not in stdout
    assert tried == []  # not even an import tried (one would be skipped, not kept)
    assert re.search(r"^\d+ tests collected in [\d.]+s$", stdout, re.M), stdout[-2000:]
