"""Traces belong to one project: two roots with the same ``train.py::train_step``, traces from one.

No TensorFlow: the trace files are written by hand, with the project and the
proofs a recording stores (``tests/support/tracefiles.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from retrace_fix.traces.project import belongs, project_of, remote_key
from tests.support.cli_runner import run_cli
from tests.support.tracefiles import with_proofs

TRAIN = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function
    def train_step(x):
        return tf.reduce_sum(x, axis=1)
    """
)
SIGNED = "@tf.function(input_signature=[tf.TensorSpec(shape=[None, 4], dtype=tf.float32)])"


def git(*args: str, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def make_repo(path: Path, remote: str) -> Path:
    path.mkdir()
    (path / "train.py").write_text(TRAIN)
    git("init", "-q", cwd=path)
    git("remote", "add", "origin", remote, cwd=path)
    return path


def traces_of(project: dict | None, extra_function: bool = False) -> dict:
    def function(qualname, line):
        traces = [{"args": {"x": {"kind": "tensor", "shape": [n, 4], "dtype": "float32"}}, "count": 1,
                   "nested": False, "via": "call"} for n in (2, 3, 5)]
        return {"file": "train.py", "qualname": qualname, "firstlineno": line, "name": qualname, "params": ["x"],
                "calls": 3, "reduce_retracing": False, "has_input_signature": False, "traces": traces}

    functions = [function("train_step", 4)] + ([function("old_step", 9)] if extra_function else [])
    data = {"format": "retrace-fix-traces", "version": 2, "tensorflow": "2.21.0", "functions": functions}
    if project is not None:
        data["project"] = project
    return with_proofs(data)


@pytest.fixture
def two_roots(tmp_path: Path) -> Path:
    make_repo(tmp_path / "repo_a", "https://user:secret@example.com/team/repo_a.git")
    make_repo(tmp_path / "repo_b", "git@example.com:team/repo_b.git")
    return tmp_path


A_PROJECT = {"name": "repo_a", "remote": "https://example.com/team/repo_a.git", "commit": None}


def test_project_of_names_the_root_and_its_remote_without_credentials(two_roots: Path):
    project = project_of(two_roots / "repo_a")
    assert project == {"name": "repo_a", "remote": "https://example.com/team/repo_a.git", "commit": None}
    assert project_of(two_roots)["remote"] is None  # not a git checkout: the name only
    assert remote_key("git@example.com:team/repo_a.git") == remote_key("https://EXAMPLE.com/team/repo_a") \
        == "example.com/team/repo_a"


def test_a_trace_from_one_root_never_fixes_the_other(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of(A_PROJECT)))
    check = run_cli("--check", "--traces", "traces.json", "repo_a", "repo_b", cwd=two_roots)
    assert check.returncode == 1, check.stderr
    assert check.stdout.splitlines() == [
        "repo_a/train.py:4:1: RTF003 [*] [safe] `train_step` traced 3 times (`x` dim 0: 2, 3, 5): "
        "add an input_signature so it traces once"
    ]
    fixed = run_cli("--traces", "traces.json", "repo_a", "repo_b", cwd=two_roots)
    assert fixed.returncode == 0, fixed.stderr
    assert SIGNED in (two_roots / "repo_a" / "train.py").read_text()
    assert (two_roots / "repo_b" / "train.py").read_text() == TRAIN


def test_explicit_root_form_and_each_roots_own_traces(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of(A_PROJECT)))
    # ROOT=FILE: the user says where it belongs (here, against the recorded project)
    check = run_cli("--check", "--traces", "repo_b=traces.json", "repo_a", "repo_b", cwd=two_roots)
    assert [line.split(":")[0] for line in check.stdout.splitlines()] == ["repo_b/train.py"]
    # no --traces: each root uses its own .retrace/traces.json
    own = two_roots / "repo_b" / ".retrace"
    own.mkdir()
    (own / "traces.json").write_text(json.dumps(traces_of({"name": "repo_b", "remote": None, "commit": None})))
    check = run_cli("--check", "repo_a", "repo_b", cwd=two_roots)
    assert [line.split(":")[0] for line in check.stdout.splitlines()] == ["repo_b/train.py"]


def test_a_file_that_belongs_to_no_root_is_not_applied_and_says_so(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of({"name": "elsewhere", "remote": None, "commit": None})))
    check = run_cli("--check", "--traces", "traces.json", "repo_a", "repo_b", cwd=two_roots)
    assert (check.returncode, check.stdout) == (0, "")
    assert ("retrace-fix: traces: traces.json applies to none of the roots checked (it was recorded in a project "
            "named 'elsewhere'); give it as --traces ROOT=FILE to apply it to one") in check.stderr
    # an old file (no project) is never guessed onto one of several roots
    old = traces_of(None)
    (two_roots / "old.json").write_text(json.dumps(old))
    check = run_cli("--check", "--traces", "old.json", "repo_a", "repo_b", cwd=two_roots)
    assert check.stdout == "" and "old.json applies to none of the roots checked" in check.stderr


def test_one_root_with_another_remote_is_refused_but_another_checkout_name_is_fine(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of(A_PROJECT)))
    check = run_cli("--check", "--traces", "../traces.json", ".", cwd=two_roots / "repo_b")
    assert check.stdout == ""
    assert "traces.json applies to none of the roots checked (it was recorded in" in check.stderr
    renamed = dict(A_PROJECT, name="a-checkout-elsewhere", remote=None)
    (two_roots / "renamed.json").write_text(json.dumps(traces_of(renamed)))
    check = run_cli("--check", "--traces", "../renamed.json", ".", cwd=two_roots / "repo_b")
    assert check.stdout.startswith("train.py:4:1: RTF003 [*] [safe]")


def test_recorded_functions_that_match_nothing_are_counted_and_named(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of(A_PROJECT, extra_function=True)))
    check = run_cli("--check", "--traces", "traces.json", "repo_a", cwd=two_roots)
    assert check.returncode == 1
    assert ("retrace-fix: traces: 1 of 2 recorded functions in traces.json matched nothing in the files checked: "
            "train.py::old_step (no matching tf.function: renamed, removed or its parameters changed since "
            "recording; re-record)\n") in check.stderr
    payload = json.loads(run_cli("--check", "--format", "json", "--traces", "traces.json", "repo_a", cwd=two_roots).stdout)
    assert payload["summary"]["traces"] == [check.stderr.splitlines()[0][len("retrace-fix: "):]]
    (two_roots / "repo_a" / "train.py").unlink()
    (two_roots / "repo_a" / "other.py").write_text("x = 1\n")
    check = run_cli("--check", "--traces", "traces.json", "repo_a", cwd=two_roots)
    assert "train.py::train_step (train.py was not checked)" in check.stderr


def test_belongs():
    here = {"name": "repo", "remote": "git@host:o/repo.git", "commit": None}
    assert belongs({"name": "x", "remote": "https://host/o/repo"}, "/r", here, True) == (True, "")
    assert not belongs({"name": "repo", "remote": "https://host/o/fork"}, "/r", here, False)[0]
    assert belongs({"name": "repo", "remote": None}, "/r", here, True)[0]
    assert not belongs({"name": "other", "remote": None}, "/r", here, True)[0]
    assert belongs({"name": "other", "remote": None}, "/r", here, False)[0]
    assert belongs(None, "/r", here, False)[0] and not belongs(None, "/r", here, True)[0]


def test_one_path_holding_several_repositories_is_a_run_over_several_roots(two_roots: Path):
    (two_roots / "traces.json").write_text(json.dumps(traces_of({"name": "repo_a", "remote": None, "commit": None})))
    check = run_cli("--check", "--traces", "traces.json", ".", cwd=two_roots)
    assert [line.split(":")[0] for line in check.stdout.splitlines()] == ["repo_a/train.py"]
