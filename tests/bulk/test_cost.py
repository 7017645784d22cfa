"""A bulk run costs what its roots' single runs cost: the same files parsed, the same results (no TensorFlow).

The cost is counted, not timed: every :class:`~retrace_fix.findings.FileResult` says how many
times LibCST parsed its file (``libcst_parses``), and the run's result is taken where the fix
command prints it.  Three roots: ``alpha`` and ``gamma`` without traces, ``beta`` with its own
``.retrace/traces.json`` for ``train.py`` only.  Each of them holds files with a ``(`` but no
tf.function (RTF005's trigger): a root without traces, or a file its traces do not mention,
must not be parsed for the trace-driven codemods, however the run is given its roots.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import pytest

from retrace_fix.commands import fix as fix_command
from retrace_fix.engine.options import RunOptions
from retrace_fix.traces.model import TraceSet
from tests.support.cli_runner import run_cli
from tests.support.gitrepos import git, new_repo
from tests.bulk.test_run import CLEAN, RELAX
from tests.traces.test_project import TRAIN, traces_of

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)

HELPER = "def helper(values):\n    return max(len(values), 1)\n"  # a `(`, no tf.function
BROKEN = "print(\n"  # a `(` and a syntax error: reported only where a codemod wants the file

ROOTS = ["alpha", "beta", "gamma"]
#: what a single-root run of each root is given (beta's own traces, which a bulk run finds by itself)
SINGLE = {"alpha": ["alpha"], "beta": ["--traces", "beta/.retrace/traces.json", "beta"], "gamma": ["gamma"]}


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("roots")
    new_repo(base / "alpha", {"model.py": RELAX, "util.py": HELPER, "bad.py": BROKEN})
    new_repo(base / "beta", {
        "train.py": TRAIN, "other.py": HELPER, "pkg/pool.py": RELAX,
        ".retrace/traces.json": json.dumps(traces_of(None)),
    })
    new_repo(base / "gamma", {"ok.py": CLEAN, "more.py": HELPER})
    (base / "urls.txt").write_text("".join((base / name).as_uri() + "\n" for name in ROOTS))
    (base / "paths.txt").write_text("".join(name + "\n" for name in ROOTS))
    return base


@pytest.fixture
def here(roots, monkeypatch):
    monkeypatch.chdir(roots)
    return roots


def parses(monkeypatch, *args: str) -> tuple[dict[str, int], list[str], dict[str, int]]:
    """``retrace-fix ARGS``: LibCST parses per file, the errors, and the fixes per file of its result."""
    results = []
    finish = fix_command.finish

    def keep(request, result, *rest, **kwargs):
        results.append(result)
        return finish(request, result, *rest, **kwargs)

    monkeypatch.setattr(fix_command, "finish", keep)
    outcome = run_cli(*args)
    assert outcome.returncode in (0, 1, 2) and len(results) == 1, outcome.stderr
    files = [f for f in results[0].files if f.path.endswith(".py")]
    return ({f.path: f.libcst_parses for f in files}, sorted(f.error for f in files if f.error),
            {f.path: f.applied_count for f in files if f.applied_count})


def summed(monkeypatch, roots: list[str] = ROOTS) -> tuple[dict[str, int], list[str], dict[str, int]]:
    counts: dict[str, int] = {}
    errors: list[str] = []
    fixes: dict[str, int] = {}
    for root in roots:
        one = parses(monkeypatch, "--diff", *SINGLE[root])
        counts |= one[0]
        errors += one[1]
        fixes |= one[2]
    return counts, sorted(errors), fixes


@pytest.fixture(scope="module")
def single(roots):
    """:func:`summed` in ``roots``, once for the module: what the bulk runs of each test must equal."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(roots)
        return summed(monkeypatch)


def test_single_runs_parse_only_what_may_hold_a_target(single):
    counts, errors, fixes = single
    assert counts == {
        "alpha/bad.py": 0, "alpha/model.py": 1, "alpha/util.py": 0,
        "beta/other.py": 0, "beta/pkg/pool.py": 1, "beta/train.py": 1,
        "gamma/more.py": 0, "gamma/ok.py": 0,  # a plain tf.function: CPython's tree shows no rule can report
    }
    assert errors == []  # a syntax error is not looked for in a file nothing wants (without --check-syntax)
    assert fixes == {"alpha/model.py": 1, "beta/pkg/pool.py": 1, "beta/train.py": 1}  # RTF004 x2, RTF003


@pytest.mark.parametrize(
    "args",
    [
        ["--diff", "--jobs", "1", *ROOTS],
        ["--diff", "--jobs", "2", *ROOTS],
        ["--diff", "--repos", "paths.txt"],
        ["--diff", "--repos", "urls.txt", "--jobs", "2"],  # git URLs: one task per root, cloned here
        ["--patch-dir", "patches", *ROOTS],
    ],
    ids=["paths", "paths-jobs-2", "repos", "repos-file-urls", "patch-dir"],
)
def test_n_roots_parse_the_files_their_single_runs_parse(here, monkeypatch, single, args):
    assert parses(monkeypatch, *args) == single


def test_shards_together_parse_what_the_single_runs_parse(here, monkeypatch, single):
    counts: dict[str, int] = {}
    errors: list[str] = []
    for k in (1, 2):
        one = parses(monkeypatch, "--diff", "--shard", f"{k}/2", *ROOTS)
        counts |= one[0]
        errors += one[1]
    assert (counts, sorted(errors)) == single[:2]


def test_a_cluster_run_parses_what_the_single_runs_parse(here, monkeypatch, single):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster:
        got = parses(monkeypatch, "--diff", "--scheduler", cluster.scheduler_address, *ROOTS)
    assert got == single


def test_branch_runs_parse_what_the_single_runs_parse(roots, single, tmp_path, monkeypatch):
    for name in ROOTS:  # --branch commits in the repositories: a copy of them (same files, same single runs)
        shutil.copytree(roots / name, tmp_path / name, symlinks=True)
    monkeypatch.chdir(tmp_path)
    assert parses(monkeypatch, "--branch", "retrace-fix/fixes", *ROOTS) == single


def test_verify_fixer_parses_only_the_files_the_traces_mention(roots):
    """--verify's engine (one trace set for the project, every candidate edited) pays for traces where they are."""
    from retrace_fix.verify.fix_units import Fixer

    traces = TraceSet.from_json(traces_of(None))
    results = Fixer(roots / "beta", ["train.py", "other.py", "pkg/pool.py"], RunOptions()).run(traces)
    assert {rel: r.libcst_parses for rel, r in results.items()} == {"train.py": 1, "other.py": 0, "pkg/pool.py": 1}
    assert "input_signature" in results["train.py"].fixed


def test_a_clone_checks_out_what_a_run_reads_and_borrows_a_local_repositorys_objects(tmp_path):
    """A git URL root costs its Python files and notebooks: a sparse checkout, and no object copied from a
    repository here."""
    from retrace_fix.bulk.git_sources import GitSource, local_git_dir, clone
    from tests.support.gitrepos import git, state

    source = new_repo(tmp_path / "source", {
        "pkg/model.py": RELAX, "pkg/types.pyi": "x: int\n", "nb/demo.ipynb": "{}\n",
        ".gitignore": "build/\n", "pkg/.gitignore": "*.tmp\n",
        ".retrace/traces.json": "{}\n", "weights.bin": "0" * 4096, "README.md": "# source\n", "data/x.csv": "1,2\n",
    })
    before = state(source)
    checkout = tmp_path / "scratch" / "source"
    commit = clone(GitSource(source.as_uri()), checkout)
    assert commit == before["head"]
    files = sorted(p.relative_to(checkout).as_posix() for p in checkout.rglob("*") if p.is_file() and ".git" not in p.parts)
    assert files == [".gitignore", ".retrace/traces.json", "nb/demo.ipynb", "pkg/.gitignore", "pkg/model.py", "pkg/types.pyi"]
    assert (checkout / "pkg/model.py").read_text() == RELAX
    alternates = (checkout / ".git/objects/info/alternates").read_text().strip()
    assert alternates == str(source / ".git" / "objects")
    assert git(checkout, "count-objects").startswith("0 objects")  # nothing was copied
    assert state(source) == before
    # a URL of another machine, or of no repository, is fetched as before (shallow, its objects copied)
    assert local_git_dir("file://example.com/srv/repo.git") is None
    assert local_git_dir((tmp_path / "nowhere").as_uri()) is None
    assert local_git_dir("https://example.com/org/repo.git") is None



def test_a_clone_runs_two_or_three_git_commands_and_no_housekeeping(tmp_path, monkeypatch):
    """A clone of a repository on this machine is two git processes: init and checkout (the commit
    its ``HEAD`` names read from its files, the sparse checkout's setting given to the checkout, the
    commit read from the detached ``HEAD``); what reading files cannot settle (a commit id) is fetched
    first, with no housekeeping (``git maintenance``: the clone lives for one run).
    Its repository is its own (made with no template), so its settings are not listed before each
    command; a repository the clone did not make still has its settings listed first."""
    import subprocess

    import retrace_fix.bulk.git as git_module
    from retrace_fix.bulk.git_sources import GitSource, clone

    source = new_repo(tmp_path / "source", {"pkg/model.py": RELAX})
    head = git(source, "rev-parse", "HEAD")
    commands: list[list[str]] = []
    real = subprocess.run

    def recording(command, *args, **kwargs):
        commands.append(list(command))
        return real(command, *args, **kwargs)

    monkeypatch.setattr(git_module.subprocess, "run", recording)
    commit = clone(GitSource(source.as_uri()), tmp_path / "scratch" / "source")
    assert [git_module._subcommand(command[1:]) for command in commands] == ["init", "checkout"]
    assert "core.sparseCheckout=true" in commands[1] and commands[1][-1] == head
    assert commit == head
    assert sorted(p.name for p in (tmp_path / "scratch" / "source" / "pkg").iterdir()) == ["model.py"]
    commands.clear()
    commit = clone(GitSource(source.as_uri(), rev=head), tmp_path / "scratch" / "by-id")
    assert [git_module._subcommand(command[1:]) for command in commands] == ["init", "fetch", "checkout"]
    assert "maintenance.auto=false" in commands[1] and "gc.auto=0" in commands[1]
    assert commands[2][-1] == "FETCH_HEAD" and commit == head
    commands.clear()
    git_module.run_git(["rev-parse", "HEAD"], cwd=source)
    assert [git_module._subcommand(command[1:]) for command in commands] == ["config", "rev-parse"]


def test_a_local_repositorys_refs_are_read_as_git_fetch_finds_them(tmp_path):
    """What a clone checks out of a repository on this machine, read from its files, is the commit
    ``git fetch`` would bring for the same name: ``HEAD`` (a branch, or detached), branches and tags
    (annotated ones peeled), loose or packed, a full ref name, a tag before a branch of the same
    name; a name no ref has, and a commit id, are fetched (git says what is wrong)."""
    from retrace_fix.bulk.git_sources import CloneError, GitSource, clone, local_revision

    source = new_repo(tmp_path / "source", {"pkg/model.py": RELAX})
    first = git(source, "rev-parse", "HEAD")
    git(source, "tag", "-a", "-m", "release", "v1")
    git(source, "tag", "light")
    git(source, "tag", "same")  # a tag and a branch named alike: fetch takes the tag
    (source / "pkg" / "model.py").write_text(RELAX + "# second\n")
    git(source, "commit", "-q", "-am", "second")
    second = git(source, "rev-parse", "HEAD")
    git(source, "branch", "same")
    git(source, "branch", "old", first)
    git_dir = source / ".git"
    expected = {None: second, "HEAD": second, "main": second, "v1": first, "light": first, "same": first,
                "old": first, "refs/heads/old": first, "heads/old": first}
    for packed in (False, True):
        if packed:
            git(source, "pack-refs", "--all")
            assert not (git_dir / "refs" / "heads" / "old").exists()
        for rev, commit in expected.items():
            if rev is not None:
                assert local_revision(git_dir, rev) in (commit, git(source, "rev-parse", rev)), rev
            checkout = tmp_path / "scratch" / f"{rev}-{packed}".replace("/", "_")
            assert clone(GitSource(source.as_uri(), rev=rev), checkout) == commit, rev
            assert ("# second" in (checkout / "pkg" / "model.py").read_text()) == (commit == second)
    assert local_revision(git_dir, "v1") == git(source, "rev-parse", "v1")  # the tag object: checkout peels it
    assert local_revision(git_dir, first) is None and local_revision(git_dir, "../../config") is None
    assert local_revision(git_dir, "nope") is None
    with pytest.raises(CloneError, match="couldn't find remote ref nope"):
        clone(GitSource(source.as_uri(), rev="nope"), tmp_path / "scratch" / "nope")
    git(source, "checkout", "-q", "--detach", first)
    assert local_revision(git_dir, None) == first
    assert clone(GitSource(source.as_uri()), tmp_path / "scratch" / "detached") == first


NOTEBOOK = json.dumps({
    "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
               "source": ["x = max(1, 2)\n", "print 'x'\n"]}],  # a `(`, and a cell CPython rejects
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
})


def test_a_notebook_beside_a_root_with_traces_is_read_as_in_its_single_run(tmp_path, monkeypatch):
    """A notebook of a root without traces is prefiltered as a static run does it: the trace-driven
    codemods (RTF005's trigger is any `(`) do not make its cells be read, so a broken cell that
    nothing wants is not reported, alone or beside a root that has traces."""
    new_repo(tmp_path / "nb", {"broken.ipynb": NOTEBOOK})
    new_repo(tmp_path / "beta", {"train.py": TRAIN, ".retrace/traces.json": json.dumps(traces_of(None))})
    monkeypatch.chdir(tmp_path)
    alone = run_cli("--check", "nb")
    together = run_cli("--check", "nb", "beta")
    assert alone.returncode == 0 and "broken.ipynb" not in alone.stdout + alone.stderr
    assert together.returncode == 1 and "broken.ipynb" not in together.stdout + together.stderr
    checked = run_cli("--check", "--check-syntax", "nb", "beta")  # cells read: the broken one is reported
    assert checked.returncode == 2 and "broken.ipynb:cell 1:2" in checked.stdout + checked.stderr


def _discard_scratches(base: str) -> None:  # runs in a child process
    from retrace_fix.bulk.scratch import discard_scratch

    for index in range(8):
        scratch = Path(base) / f"scratch-{index}"
        (scratch / "pkg").mkdir(parents=True)
        (scratch / "pkg" / "model.py").write_text(RELAX)
        discard_scratch(str(scratch))


def test_a_clones_scratch_is_removed_on_its_own_thread_and_none_outlives_the_process(tmp_path):
    """A clone's scratch directory is removed while the next root goes on; waiting for it, or the
    end of the process (a Dask worker ends as a multiprocessing child does), leaves none behind."""
    import multiprocessing

    from retrace_fix.bulk.scratch import discard_scratch, wait_for_scratch

    scratch = tmp_path / "here"
    (scratch / "pkg").mkdir(parents=True)
    (scratch / "pkg" / "model.py").write_text(RELAX)
    discard_scratch(str(scratch))
    wait_for_scratch()
    assert not scratch.exists()
    child = multiprocessing.get_context("fork").Process(target=_discard_scratches, args=(str(tmp_path),))
    child.start()
    child.join()
    assert child.exitcode == 0 and sorted(p.name for p in tmp_path.iterdir()) == []
