"""``tests/support/replayed_runs.py``: which runs are replayed to a later test and which are made again.

A stand-in ``run_once`` counts the runs it makes and records what the copy's files
and the environment were; nothing is started.
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from retrace_fix.bench.runs import RunRecord, Tree
from tests.support.replayed_runs import replay_identical_runs


def stand_in(made: list[str]) -> types.SimpleNamespace:
    """A module whose ``run_once`` reads ``main.py`` of the copy and prints it (``PROJECT``: the
    user's project's path), with a traceback that names the copy when the file says ``fail``."""

    def run_once(tree, index, command, work, project_root, compare_paths, timeout, prove=False):
        made.append(f"{tree.side}-{index}")
        text = (tree.root / "main.py").read_text()
        record = RunRecord(side=tree.side, index=index, exit_code=0)
        record.outputs["stdout"] = text.replace("PROJECT", str(project_root))
        if "fail" in text:
            record.exit_code = 1
            record.stderr_tail = f'File "{tree.root}/main.py", line 1\nRuntimeError: fail\n'
        return record

    return types.SimpleNamespace(run_once=run_once)


def copy_with(base: Path, name: str, text: str) -> Tree:
    root = base / name / "proj"
    root.mkdir(parents=True)
    (root / "main.py").write_text(text)
    return Tree(side="before", root=root, cwd=root)


def run(module, tree: Tree, index: int = 1, command=("python", "main.py")) -> RunRecord:
    """The run of ``tree`` for the user's project ``project`` (beside the copies, as a real one is)."""
    project = tree.root.parents[1] / "project"
    return module.run_once(tree, index, list(command), tree.root.parent, project, [], None, True)


@pytest.fixture
def replaying(monkeypatch):
    made: list[str] = []
    module = stand_in(made)
    replay_identical_runs(monkeypatch, module, {})
    return module, made


def test_the_same_run_on_the_same_files_is_made_once(tmp_path, replaying):
    module, made = replaying
    first = run(module, copy_with(tmp_path, "a", "print(1)\n"))
    again = run(module, copy_with(tmp_path, "b", "print(1)\n"))
    assert made == ["before-1"] and again.outputs == first.outputs and again is not first
    again.outputs["stdout"] = "changed by a test"
    assert run(module, copy_with(tmp_path, "c", "print(1)\n")).outputs == {"stdout": "print(1)\n"}


@pytest.mark.parametrize("other", ["bytes", "name", "number", "command", "environment"])
def test_any_difference_makes_the_run_again(tmp_path, replaying, monkeypatch, other):
    module, made = replaying
    run(module, copy_with(tmp_path, "a", "print(1)\n"))
    tree = copy_with(tmp_path, "b", "print(2)\n" if other == "bytes" else "print(1)\n")
    if other == "name":
        (tree.root / "main.py").rename(tree.root / "other.py")
        (tree.root / "main.py").write_text("print(1)\n")
    if other == "environment":
        monkeypatch.setenv("RETRACE_FIX_PROOF_SECONDS", "5")
    run(module, tree, index=2 if other == "number" else 1,
        command=("python", "-X", "dev", "main.py") if other == "command" else ("python", "main.py"))
    assert len(made) == 2


def test_a_traceback_names_the_copy_it_is_given_to(tmp_path, replaying):
    module, made = replaying
    first = run(module, copy_with(tmp_path, "a", "fail\n"))
    moved = run(module, copy_with(tmp_path, "b", "fail\n"))
    assert made == ["before-1"]
    assert str(tmp_path / "a") in first.stderr_tail
    assert moved.stderr_tail == first.stderr_tail.replace(str(tmp_path / "a"), str(tmp_path / "b"))
    # a copy whose path is longer: the kept tail of stderr could start elsewhere, so it runs
    run(module, copy_with(tmp_path, "longer", "fail\n"))
    assert made == ["before-1", "before-1"]


def test_a_run_that_names_the_users_project_is_made_again(tmp_path, replaying):
    module, made = replaying
    assert run(module, copy_with(tmp_path, "a", "PROJECT\n")).outputs["stdout"] == f"{tmp_path / 'project'}\n"
    run(module, copy_with(tmp_path, "b", "PROJECT\n"))
    assert made == ["before-1", "before-1"]
