"""What a run of several workers costs beyond the work: what the pool builds before it forks
(:mod:`retrace_fix.engine.warm_up`), what results carry back (:func:`~retrace_fix.engine.process.without_text`),
and the per-directory look-ups of discovery and :func:`~retrace_fix.engine.run.make_jobs`.

Pure rewriter: no TensorFlow import.  No timings: what is built, sent and found is checked.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

import libcst as cst
import pytest

from retrace_fix import fastvisit
from retrace_fix.codemods import _base
from retrace_fix.engine import warm_up as warm_up_module
from retrace_fix.engine.options import FileJob, RunOptions, codemods_for_file
from retrace_fix.engine.run import make_jobs, run
from retrace_fix.sources.discovery import ENV_PROJECT_ROOT, ProjectRoots, discover, find_project_root

RELAX_SRC = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"
QUIET_SRC = "x = 1\n"


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 0}, indent=1) + "\n"


def _project(tmp_path: Path, quiet: int) -> list[Path]:
    """A fixable file, a fixable notebook, an unreadable file and ``quiet`` files with nothing to report."""
    (tmp_path / "fix.py").write_text(RELAX_SRC)
    (tmp_path / "fix.ipynb").write_text(_notebook(RELAX_SRC))
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9'\n")  # not UTF-8, no cookie: an error
    for index in range(quiet):
        (tmp_path / f"q{index:02}.py").write_text(QUIET_SRC + "#" * index)
    return sorted(tmp_path.iterdir())


def _shape(result) -> list[tuple]:
    return [(r.path, r.original, r.fixed, r.error, r.skipped, [f.to_json() for f in r.findings]) for r in result.files]


@pytest.mark.parametrize("quiet", [3, warm_up_module.MIN_FILES])  # the second run warms up before the fork
def test_quiet_files_come_back_without_text_whatever_the_workers(tmp_path, monkeypatch, quiet):
    monkeypatch.chdir(tmp_path)
    files = _project(tmp_path, quiet)
    serial, parallel = run(files, RunOptions(), jobs=1), run(files, RunOptions(), jobs=2)
    assert _shape(parallel) == _shape(serial)
    by_path = {r.path: r for r in parallel.files}
    assert by_path["fix.py"].original == RELAX_SRC and "reduce_retracing=True" in by_path["fix.py"].fixed
    assert by_path["fix.ipynb"].changed and by_path["fix.ipynb"].original == (tmp_path / "fix.ipynb").read_text()
    assert by_path["latin.py"].error and by_path["latin.py"].original is None
    quiet_results = [r for r in parallel.files if r.path.startswith("q")]
    assert len(quiet_results) == quiet
    # read (not None, as for a file that could not be read), nothing to write, no text carried
    assert all(r.original == r.fixed == "" and not r.changed and r.error is None for r in quiet_results)


def test_the_parent_freezes_its_objects_only_while_the_workers_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = _project(tmp_path, 3)
    calls: list[str] = []
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 0)  # a command-line run (the tests' own are frozen)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))  # the workers' calls are theirs
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    run(files, RunOptions(), jobs=1)
    assert calls == []
    run(files, RunOptions(), jobs=2)
    assert calls == ["freeze", "unfreeze"]


def test_a_file_with_a_finding_keeps_its_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "import tensorflow as tf\n\n\ndef f(xs):\n    for x in xs:\n        g = tf.function(lambda t: t)\n        g(x)\n"
    (tmp_path / "diag.py").write_text(source)
    (result,) = run([tmp_path / "diag.py"], RunOptions(), jobs=1).files
    assert result.findings and not result.changed  # a diagnostic: reported, not fixed
    assert result.original == result.fixed == source  # SARIF and --interactive read it


@pytest.fixture
def cold_caches(monkeypatch):
    """The caches a worker builds on its first files, emptied (as in a fresh process)."""
    monkeypatch.setattr(fastvisit, "_PLANS", {})
    monkeypatch.setattr(fastvisit, "_CHILD_PLANS", {})
    monkeypatch.setattr(_base, "_FAST_DISPATCH", {})
    monkeypatch.delitem(sys.modules, "nbformat", raising=False)  # imported again only if a run uses it


def _jobs(count: int, suffix: str = ".py") -> list[FileJob]:
    # paths that do not exist: warming up reads no file
    return [FileJob(path=Path(f"/nonexistent/f{i}{suffix}"), display=f"f{i}{suffix}", relpath=f"f{i}{suffix}")
            for i in range(count)]


def test_warm_up_builds_what_each_worker_would(cold_caches):
    options = RunOptions()
    warm_up_module.warm_up(_jobs(warm_up_module.MIN_FILES - 1) + _jobs(1, ".ipynb"), options)
    assert {cst.Module, cst.FunctionDef, cst.Call, cst.Name} <= set(fastvisit._PLANS)
    assert cst.FunctionDef in fastvisit._CHILD_PLANS
    codemods = codemods_for_file(options, False)
    assert codemods and all(cls in _base._FAST_DISPATCH for cls in codemods)
    assert "nbformat" not in sys.modules  # nothing of a run validates with it: not imported, not compiled


def test_small_runs_and_runs_without_notebooks_build_less(cold_caches):
    warm_up_module.warm_up(_jobs(warm_up_module.MIN_FILES - 1), RunOptions())
    assert fastvisit._PLANS == {} and _base._FAST_DISPATCH == {}  # two workers may never need it
    warm_up_module.warm_up(_jobs(warm_up_module.MIN_FILES), RunOptions())
    assert fastvisit._PLANS


def test_the_bulk_workers_preload_builds_every_codemods_caches_and_freezes(cold_caches, monkeypatch):
    """``--scheduler local``'s workers' server imports it before any run's options are known: every
    codemod's dispatch table is built (a run with ``--select``, traces or ``--unsafe-fixes`` finds
    its own ready too), the walks' plans are made, and the heap is frozen after them."""
    import gc
    import importlib

    import retrace_fix.bulk.worker_preload as preload
    from retrace_fix.codemods import REGISTRY

    freezes: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(len(_base._FAST_DISPATCH)))
    importlib.reload(preload)
    assert set(REGISTRY) <= set(_base._FAST_DISPATCH) and len(REGISTRY) > len(codemods_for_file(RunOptions(), False))
    assert {cst.Module, cst.FunctionDef, cst.Call} <= set(fastvisit._PLANS)
    assert freezes == [len(_base._FAST_DISPATCH)]  # once, after everything was built


def test_nested_gitignores_apply_from_the_repository_root_down(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*_gen.py\nbuild/\n")
    sub = tmp_path / "pkg" / "sub"
    sub.mkdir(parents=True)
    (tmp_path / "pkg" / ".gitignore").write_text("sub/local.py\n")
    (sub / ".gitignore").write_text("deep/\n")
    for name in ["a.py", "a_gen.py", "pkg/b_gen.py", "pkg/sub/local.py", "pkg/sub/c.py",
                 "pkg/sub/deep/d.py", "pkg/build/e.py", "other/local.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(QUIET_SRC)
    found = discover(["."], [])
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == [
        "a.py", "other/local.py", "pkg/sub/c.py",
    ]
    assert found.real == {p: os.path.join(os.path.realpath(tmp_path), p.relative_to(tmp_path)) for p in found.files}


def test_project_roots_agree_with_find_project_root(tmp_path, monkeypatch):
    outer = tmp_path / "outer"
    inner = outer / "vendor" / "inner"
    plain = tmp_path / "plain" / "deeper"
    for directory in (outer / "a" / "b", inner / "c", plain):
        directory.mkdir(parents=True)
    (outer / ".git").mkdir()
    (inner / ".git").write_text("gitdir: elsewhere\n")  # a submodule's .git is a file
    (tmp_path / "link").symlink_to(inner / "c")
    monkeypatch.chdir(tmp_path)
    directories = [outer, outer / "a" / "b", outer / "vendor", inner, inner / "c", plain, tmp_path / "link"]
    roots = ProjectRoots()
    assert [roots.of(os.path.realpath(d)) for d in directories] == [find_project_root(d) for d in directories]
    assert roots.of(os.path.realpath(plain)) == os.path.realpath(tmp_path)  # no .git above: the current directory
    monkeypatch.setenv(ENV_PROJECT_ROOT, str(plain))
    assert ProjectRoots().of(os.path.realpath(inner)) == find_project_root(inner) == os.path.realpath(plain)


def test_make_jobs_roots_and_relative_paths(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "pkg" / "m.py").write_text(QUIET_SRC)
    (tmp_path / "loose.py").write_text(QUIET_SRC)
    monkeypatch.chdir(tmp_path)
    jobs = make_jobs([repo / "pkg" / "m.py", tmp_path / "loose.py"])
    real = os.path.realpath(tmp_path)
    assert [(j.display, j.relpath, j.root) for j in jobs] == [
        ("repo/pkg/m.py", "pkg/m.py", os.path.join(real, "repo")),
        ("loose.py", "loose.py", real),
    ]
