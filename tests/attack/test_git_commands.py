"""Issue 26, item 1: code, a ``.git/config`` or a bare repository that came from someone else
never makes the git commands retrace-fix runs execute a command (no TensorFlow).

The attacks: a pull request commits a bare repository (``tools/HEAD``, ``tools/config``,
``tools/objects``, ``tools/refs``) whose config sets ``core.worktree = .``, a
``core.fsmonitor`` command and ``core.hooksPath`` with executable hooks; a downloaded
checkout's ``.git/config`` sets the same and every other setting that names a command
(filters, textconv, ``diff.external``, a pager, credential helpers, ``gpg.program``...).
Every planted command appends to one marker file, which must never appear.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from retrace_fix.bulk import git as git_runner
from retrace_fix.bulk.git import run_git
from retrace_fix.traces.project import project_of
from tests.support.cli_runner import run_cli
from tests.support.gitrepos import new_repo
from tests.bulk.test_run import RELAX, write

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)

FIXED = RELAX.replace("experimental_relax_shapes", "reduce_retracing")
HOOKS = ("reference-transaction", "pre-commit", "post-commit", "commit-msg", "post-checkout",
         "post-index-change", "pre-auto-gc", "post-rewrite", "pre-push", "fsmonitor-watchman")


def safe_git(cwd: Path, *args: str) -> str:
    """The test's own look at a hostile repository (git with every command it could run off)."""
    done = subprocess.run(
        ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )
    return done.stdout.strip()


def planted(tmp_path: Path) -> tuple[Path, Path]:
    """(the attacker's command, the marker file it appends ``NAME ARGS`` to)."""
    marker = tmp_path / "PWNED"
    evil = tmp_path / "evil.sh"
    evil.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\nexit 1\n')
    evil.chmod(0o755)
    return evil, marker


def plant_hooks(directory: Path, evil: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for hook in HOOKS:
        (directory / hook).write_text(f"#!/bin/sh\n{evil} hook-{hook}\n")
        (directory / hook).chmod(0o755)


def hostile_config(evil: Path) -> str:
    """Every setting of a repository's own config that names a command."""
    return "\n".join([
        "[core]",
        f'\tfsmonitor = "{evil} fsmonitor"',
        "\thooksPath = evilhooks",
        f'\tpager = "{evil} pager"',
        f'\tsshCommand = "{evil} ssh"',
        f'\teditor = "{evil} editor"',
        f'\taskPass = "{evil} askpass"',
        f'\talternateRefsCommand = "{evil} alternate"',
        '[filter "evil"]',
        f'\tclean = "{evil} clean"',
        f'\tsmudge = "{evil} smudge"',
        '[filter "proc"]',
        f'\tprocess = "{evil} process"',
        '[filter "a=b"]',  # a subsection that ``-c KEY=`` cannot name
        f'\tclean = "{evil} clean-a=b"',
        '[diff "evil"]',
        f'\ttextconv = "{evil} textconv"',
        f'\tcommand = "{evil} diff-driver"',
        "[diff]",
        f'\texternal = "{evil} external"',
        "[credential]",
        f'\thelper = "!{evil} credential"',
        "[commit]",
        "\tgpgSign = true",
        "[log]",
        "\tshowSignature = true",
        "[gpg]",
        f"\tprogram = {evil}",
        "[include]",
        "\tpath = more.cfg",  # commands from an included file count as the repository's too
        "",
    ])


@pytest.fixture
def checkout(tmp_path):
    """A downloaded checkout: committed code, then a hostile ``.git/config`` (and hooks, attributes)."""
    evil, marker = planted(tmp_path)
    repo = new_repo(tmp_path / "checkout", {
        "model.py": RELAX, ".gitattributes": "*.py filter=evil diff=evil\n*.txt filter=proc\n", "notes.txt": "x\n",
    })
    plant_hooks(repo / "evilhooks", evil)
    plant_hooks(repo / ".git" / "hooks", evil)
    with open(repo / ".git" / "config", "a") as config:
        config.write(hostile_config(evil))
    (repo / ".git" / "more.cfg").write_text(f'[filter "more"]\n\tclean = "{evil} included-clean"\n')
    write(repo / ".gitattributes",
          "*.py filter=evil diff=evil\n*.txt filter=proc\n*.cfg filter=more\n*.ab filter=a=b\n")
    return repo, marker


def test_branch_in_a_checkout_with_a_hostile_config_runs_no_command(checkout, monkeypatch):
    repo, marker = checkout
    monkeypatch.chdir(repo.parent)
    code, _, err = run_cli("--branch", "fixbr", "checkout/model.py").outcome
    assert not marker.exists(), marker.read_text()  # today: fsmonitor 4 times, reference-transaction twice
    assert code == 0, err
    commit = safe_git(repo, "rev-parse", "refs/heads/fixbr")
    assert safe_git(repo, "cat-file", "blob", f"{commit}:model.py") == FIXED.rstrip("\n")
    assert safe_git(repo, "cat-file", "-p", commit).count("gpgsig") == 0  # never signed with the repo's gpg.program


def test_every_git_command_runs_with_the_protections(checkout):
    """Commands that run filters, textconv, external diffs, pagers and hooks, through the one helper."""
    repo, marker = checkout
    write(repo / "model.py", FIXED)  # a change in the work tree: status refreshes, diff compares
    write(repo / "notes.txt", "y\n")
    for args in (
        ["status", "--porcelain"], ["diff"], ["diff", "HEAD"], ["diff", "--stat"], ["log", "-p", "-1"],
        ["show", "HEAD"], ["hash-object", "--path", "model.py", "--stdin"], ["hash-object", "notes.txt"],
        ["hash-object", "--path", "x.cfg", "--stdin"], ["hash-object", "--path", "x.ab", "--stdin"],
        ["checkout", "--", "model.py"], ["update-index", "--refresh"], ["var", "GIT_PAGER"],
    ):
        run_git(args, cwd=repo, check=False, input=b"text\n")
    assert project_of(repo)["commit"] == safe_git(repo, "rev-parse", "HEAD")
    assert not marker.exists(), marker.read_text()
    assert run_git(["hash-object", "--path", "model.py", "--stdin"], cwd=repo, input=b"a\n").returncode == 0


def bare_repository_in(directory: Path, evil: Path) -> None:
    """``directory`` made a bare repository whose config runs ``evil`` (the issue's ``tools/``)."""
    (directory / "objects").mkdir(parents=True)
    (directory / "refs" / "heads").mkdir(parents=True)
    (directory / "HEAD").write_text("ref: refs/heads/main\n")
    (directory / "config").write_text(
        f'[core]\n\tworktree = .\n\tfsmonitor = "{evil} bare-fsmonitor"\n\thooksPath = hooks\n')
    plant_hooks(directory / "hooks", evil)


@pytest.mark.parametrize("argument", ["victim/tools/model.py", "victim/tools", "."])
def test_a_bare_repository_committed_into_the_tree_is_never_used(tmp_path, monkeypatch, argument):
    evil, marker = planted(tmp_path)
    victim = new_repo(tmp_path / "victim", {"tools/model.py": RELAX})
    bare_repository_in(victim / "tools", evil)
    safe_git(victim, "add", "-A")
    safe_git(victim, "commit", "-q", "-m", "the pull request")
    head = safe_git(victim, "rev-parse", "HEAD")
    monkeypatch.chdir(victim / "tools" if argument == "." else tmp_path)  # "." : the user cd'ed into tools/
    code, _, err = run_cli("--branch", "fixbr", argument).outcome
    assert not marker.exists(), marker.read_text()
    assert code == 0, err  # today: "not in a git repository (this operation must be run in a work tree)"
    commit = safe_git(victim, "rev-parse", "refs/heads/fixbr")  # the branch is the checkout's, found by its .git
    assert safe_git(victim, "rev-parse", f"{commit}^") == head
    assert safe_git(victim, "diff", "--name-only", head, commit) == "tools/model.py"
    assert not (victim / "tools" / "refs" / "heads" / "fixbr").exists()
    assert (victim / "tools" / "model.py").read_text() == RELAX  # --branch never writes the work tree


def test_a_bare_repository_in_a_tree_outside_git_is_no_repository(tmp_path, monkeypatch):
    """A downloaded tree (no ``.git``) holding the bare ``tools/``: --branch has no repository there."""
    evil, marker = planted(tmp_path)
    write(tmp_path / "tree" / "tools" / "model.py", RELAX)
    bare_repository_in(tmp_path / "tree" / "tools", evil)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("--branch", "fixbr", "tree/tools/model.py").outcome
    assert not marker.exists(), marker.read_text()
    assert code == 2
    assert f"no branch fixbr: not in a git repository (no .git at or above {(tmp_path / 'tree' / 'tools').resolve()})" in err
    assert not (tmp_path / "tree" / "tools" / "refs" / "heads" / "fixbr").exists()


def test_a_work_tree_moved_elsewhere_by_the_config_is_refused(tmp_path, monkeypatch):
    elsewhere = new_repo(tmp_path / "elsewhere", {"model.py": RELAX})
    victim = new_repo(tmp_path / "victim", {"model.py": RELAX})
    safe_git(victim, "config", "core.worktree", str(elsewhere))
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("--branch", "fixbr", "victim/model.py").outcome
    assert code == 2
    assert f"git's work tree for it is {elsewhere.resolve()}" in err and "(core.worktree?)" in err
    assert subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/heads/fixbr"], cwd=victim,
                          capture_output=True).returncode == 1  # no branch made
    with pytest.raises(git_runner.GitError, match="no .git at or above"):
        git_runner.repository_toplevel(tmp_path)


def test_bench_and_verify_copies_hold_no_git_entry(tmp_path):
    """A worktree's ``.git`` file or a link named ``.git`` copied into a ``bench``/``--verify`` copy
    would make git there (the program's own ``git describe``, say) act on the original repository."""
    from retrace_fix.bench.copying import copy_project, exclude_matcher

    real = new_repo(tmp_path / "real", {"model.py": RELAX})
    project = tmp_path / "project"
    write(project / "model.py", RELAX)
    (project / ".git").write_text(f"gitdir: {real / '.git'}\n")  # as `git worktree add` writes it
    write(project / "sub" / "x.py", RELAX)
    os.symlink(real / ".git", project / "sub" / ".git")
    os.symlink(real / ".git", project / "sub" / ".GIT")
    copy = tmp_path / "copy"
    copy_project(project, copy, exclude_matcher(project, project, []))
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*")) == ["model.py", "sub", "sub/x.py"]


@pytest.mark.parametrize("fifo", [".git", ".git/config"])
def test_a_fifo_for_git_to_read_fails_at_once(tmp_path, monkeypatch, fifo):
    """A tree from someone else with ``.git`` (or ``.git/config``) a FIFO: git would wait on it forever."""
    victim = new_repo(tmp_path / "victim", {"model.py": RELAX})
    shutil.rmtree(victim / ".git") if fifo == ".git" else (victim / fifo).unlink()
    os.mkfifo(victim / fifo)
    monkeypatch.chdir(tmp_path)
    done = []
    worker = threading.Thread(target=lambda: done.append(run_cli("--branch", "fixbr", "victim").outcome), daemon=True)
    worker.start()
    worker.join(30)  # today: git blocks in open() with no time limit
    assert done, "--branch waited on the FIFO"
    code, _, err = done[0]
    assert code == 2 and f"{victim / fifo}: not a regular file or directory" in err
    assert project_of(victim)["commit"] is None

