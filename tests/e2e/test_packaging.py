"""Install instructions that work: a wheel built from the checkout holds every module (the
codemods included, from the top-level ``codemods/`` folder) and runs from where it is installed;
the pre-commit snippets name the release tag of this version."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from retrace_fix import __version__

ROOT = Path(__file__).resolve().parents[2]
RELAX = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"


def _backend_available() -> bool:
    """Building offline needs the build backend in this environment (no build isolation)."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    import setuptools

    major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if not _backend_available():
        pytest.skip("setuptools (and wheel, for setuptools < 70.1) are needed to build without network")
    source = tmp_path_factory.mktemp("checkout")
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    for name in ("retrace_fix", "codemods"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path_factory.mktemp("dist")
    # what ``pip wheel --no-build-isolation`` does, without pip's own process and imports: the build
    # backend pyproject.toml names, its PEP 517 hook, in a process started in the copy
    backend = _tomllib().loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["build-backend"]
    done = subprocess.run([sys.executable, "-c", BUILD_WHEEL, backend, str(dist)], cwd=source,
                          check=True, capture_output=True, text=True, timeout=300)
    (built,) = dist.glob("*.whl")
    assert done.stdout.splitlines()[-1] == built.name  # the name the hook gives back
    return built


#: a PEP 517 frontend's call of the backend's ``build_wheel`` hook (its name: the last line printed)
BUILD_WHEEL = "import importlib, sys; print(importlib.import_module(sys.argv[1]).build_wheel(sys.argv[2]))"


def _tomllib():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def test_the_wheel_holds_every_module_and_the_entry_points(wheel: Path):
    assert wheel.name == f"retrace_fix-{__version__}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(ROOT).as_posix() for p in (ROOT / "retrace_fix").rglob("*.py")}
    expected |= {"retrace_fix/codemods/" + p.relative_to(ROOT / "codemods").as_posix()
                 for p in (ROOT / "codemods").rglob("*.py")}
    expected = {name for name in expected if "__pycache__" not in name}
    assert "retrace_fix/codemods/predict_to_call.py" in expected
    assert sorted(expected - names) == []
    assert not [n for n in names if n.startswith("codemods/")]  # no generic top-level package
    entry_points = zipfile.ZipFile(wheel).read(f"retrace_fix-{__version__}.dist-info/entry_points.txt").decode()
    assert "retrace-fix = retrace_fix.cli:main" in entry_points


#: imported at the start of the console script's process (``sitecustomize``): at its end, it writes
#: where ``retrace_fix`` and its codemods were imported from, and the first codes of the table
WHERE_PROBE = """\
import atexit, json, os, sys


def _where():
    import retrace_fix, retrace_fix.codemods as c

    with open(os.environ["WHERE_OUT"], "w") as out:
        json.dump([retrace_fix.__file__, c.__file__, sorted(c.RULES)[:2]], out)


atexit.register(_where)
"""


def test_the_installed_wheel_runs_away_from_the_checkout(wheel: Path, tmp_path: Path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, text=True, timeout=300)
    work = tmp_path / "work"
    work.mkdir()
    (work / "relax.py").write_text(RELAX, encoding="utf-8")
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(WHERE_PROBE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(probe)])
    env["WHERE_OUT"] = str(tmp_path / "where.json")
    script = target / "bin" / "retrace-fix"
    # one process: the installed console script, which also says where its modules came from
    proc = subprocess.run([str(script), "--diff", "relax.py"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "+@tf.function(reduce_retracing=True)\n" in proc.stdout
    package, codemods, codes = json.loads((tmp_path / "where.json").read_text(encoding="utf-8"))
    assert package.startswith(str(target)) and codemods.startswith(str(target))
    assert codes == ["RTF001", "RTF002"]


# --------------------------------------------------------------------------- pre-commit


TAG = f"v{__version__}"


def test_release_tags_are_v_and_the_version_and_every_snippet_names_this_one():
    revs = {
        "docs/ci.md": re.findall(r"^\s*rev: (\S+)", (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"), re.M),
        ".pre-commit-hooks.yaml": re.findall(r"^#\s+rev: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(
            encoding="utf-8"), re.M),
        "README.md": re.findall(r"^\s*rev: (\S+)", (ROOT / "README.md").read_text(encoding="utf-8"), re.M),
    }
    assert revs == {name: [TAG] for name in revs}
    assert "tagged `v<version>`" in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")


def test_the_readme_installs_the_wheel_of_this_version():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wheel = f"dist/retrace_fix-{__version__}-py3-none-any.whl"
    assert "python3 -m pip wheel --no-deps -w dist ." in readme and f"python3 -m pip install {wheel}" in readme


def test_the_version_is_read_from_one_place():
    config = _tomllib().loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in config["project"] and config["project"]["dynamic"] == ["version"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "retrace_fix.__version__"}
