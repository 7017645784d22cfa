"""Issue 26, item 2: a link named on the command line is never followed out of its project root
(no TensorFlow).

The attack: a pull request adds ``leak.py -> ../secret/model.py``; ``retrace-fix *.py``
rewrote the outside file and ``--patch-dir`` wrote its contents (an API key) into a patch
meant to be shared.  A directory walk already skipped such links; a path named on the
command line (or as ``--stdin-filename``) whose real location leaves its project root (the
git root, or the folder given) is now refused: reported, exit 2, never read, nothing
outside written.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli
from tests.bulk.test_run import RELAX, write
from tests.support.tree_state import changed, digest

SECRET = RELAX + 'API_KEY = "sk-live-0123456789"\n'
FIXED = RELAX.replace("experimental_relax_shapes", "reduce_retracing")


@pytest.fixture
def tree(tmp_path):
    """``victim/`` (a git checkout, with a file of its own) next to ``secret/``, linked from the victim."""
    secret = tmp_path / "secret"
    write(secret / "model.py", SECRET)
    victim = tmp_path / "victim"
    write(victim / "own.py", RELAX)
    write(victim / "src" / "real.py", RELAX)
    os.symlink("../secret/model.py", victim / "leak.py")
    os.symlink("../secret", victim / "vendor")
    os.symlink("src/real.py", victim / "alias.py")  # a link that stays inside: processed as before
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(victim)], check=True)
        subprocess.run(["git", "-C", str(victim), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(victim), "-c", "user.name=t", "-c", "user.email=t@t",
                        "commit", "-q", "-m", "pr"], check=True)
    return tmp_path, victim, secret


def refusal(victim: Path, name: str, target: Path) -> str:
    return f"{name}: refused: a link to {target.resolve()}, outside its project root {victim.resolve()}"


MODES = {
    "fix": [],
    "--diff": ["--diff"],
    "--check": ["--check"],
    "--patch-dir": ["--patch-dir", "../patches"],
    "--branch": ["--branch", "fixbr"],
    "-i": ["-i", "-j", "1"],
}


@pytest.mark.parametrize("mode", MODES)
def test_a_named_link_out_of_the_root_is_refused_in_every_mode(tree, mode):
    """A link to a file, a link to a directory and a file through it, beside a file of the root's own."""
    tmp_path, victim, secret = tree
    if mode == "--branch" and shutil.which("git") is None:
        pytest.skip("git not installed")
    (tmp_path / "patches").mkdir()
    before = digest(secret)
    done = run_cli(*MODES[mode], "leak.py", "vendor", "vendor/model.py", "own.py", cwd=victim, stdin="y\n" * 4)
    assert done.returncode == 2, done.stdout + done.stderr
    for name, target in (("leak.py", secret / "model.py"), ("vendor", secret), ("vendor/model.py", secret / "model.py")):
        assert refusal(victim, name, target) in done.stderr
    assert changed(before, digest(secret)) == []  # nothing outside the root is written
    everything = done.stdout + done.stderr + "".join(p.read_text() for p in (tmp_path / "patches").iterdir())
    assert "sk-live" not in everything  # nothing read into a diff, a patch or a report
    if mode in ("fix", "-i"):
        assert (victim / "own.py").read_text() == FIXED  # the rest of the run goes on
    if mode == "--patch-dir":
        assert "reduce_retracing" in (tmp_path / "patches" / "victim.patch").read_text()


def test_the_issue_command_a_glob_of_the_root(tree):
    tmp_path, victim, secret = tree
    names = sorted(p.name for p in victim.glob("*.py"))  # what the shell gives for *.py
    assert names == ["alias.py", "leak.py", "own.py"]
    done = run_cli(*names, cwd=victim)
    assert done.returncode == 2
    assert done.stderr.count("refused: a link to") == 1
    assert (secret / "model.py").read_text() == SECRET
    assert (victim / "own.py").read_text() == (victim / "src" / "real.py").read_text() == FIXED  # the inside link too
    # a named directory that is a link to a checkout elsewhere (a usual set-up) is its own root: fixed
    project = tmp_path / "data" / "project"
    write(project / "model.py", RELAX)
    (project / ".git").mkdir()
    os.symlink(project, tmp_path / "project")
    done = run_cli("project", "project/model.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (project / "model.py").read_text() == FIXED


@pytest.mark.parametrize("mode", [[], ["--diff"]])
def test_a_stdin_filename_that_leads_out_is_refused_and_passed_through(tree, mode):
    tmp_path, victim, secret = tree
    done = run_cli(*mode, "-", "--stdin-filename", "leak.py", cwd=victim, stdin=RELAX)
    assert done.returncode == 2
    assert refusal(victim, "leak.py", secret / "model.py") in done.stderr
    assert done.stdout == (RELAX if not mode else "")  # an editor that replaces its buffer loses nothing
