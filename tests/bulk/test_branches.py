"""--branch NAME: one commit of the fixes per changed git repository; nothing else moves (no TensorFlow)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.support.gitrepos import commit_all, git, git_bytes, new_repo, state
from tests.support.cli_runner import run_cli
from tests.bulk.test_run import CLEAN, PREDICT, RELAX, tree, write

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)

BRANCH = "retrace-fix/retracing"


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    alpha = new_repo(ws / "alpha", {"model.py": PREDICT, "pool.py": RELAX, "clean.py": CLEAN, "dirty.py": RELAX})
    write(alpha / "crlf.py", RELAX, newline="\r\n")
    commit_all(alpha, "crlf")
    git(alpha, "checkout", "-q", "-b", "work")  # the user's current branch is not main
    write(alpha / "dirty.py", RELAX + "# not committed\n")  # a fixable file with uncommitted changes
    write(alpha / "clean.py", CLEAN + "# staged\n")
    git(alpha, "add", "clean.py")  # staged work elsewhere
    write(alpha / "new.py", RELAX)  # untracked
    new_repo(ws / "mono", {"a/x.py": RELAX, "b/y.py": RELAX, "c/z.py": RELAX})  # two roots, one repository
    new_repo(ws / "quiet", {"ok.py": CLEAN})
    taken = new_repo(ws / "taken", {"t.py": RELAX})
    git(taken, "branch", BRANCH)
    write(ws / "plain" / "p.py", RELAX)  # not in git
    monkeypatch.chdir(ws)
    return ws


def test_branch_commits_the_fixes_and_moves_nothing_else(workspace):
    alpha = workspace / "alpha"
    before, files = state(alpha), tree(workspace)
    code, out, err = run_cli("--branch", BRANCH, "--format", "json", "alpha").outcome
    assert code == 0, err
    assert state(alpha) == before and tree(workspace) == files  # HEAD, branch, index, working tree
    head = before["head"]
    commit = git(alpha, "rev-parse", f"refs/heads/{BRANCH}")
    assert git(alpha, "rev-parse", f"{commit}^@") == head  # one commit on top of HEAD
    assert git(alpha, "diff", "--name-only", head, commit).split() == ["crlf.py", "model.py", "pool.py"]
    assert git_bytes(alpha, "show", f"{commit}:crlf.py") == RELAX.replace(
        "experimental_relax_shapes", "reduce_retracing").replace("\n", "\r\n").encode()
    assert git(alpha, "show", f"{commit}:dirty.py") == RELAX.rstrip("\n")  # left as in HEAD
    assert git(alpha, "log", "-1", "--format=%an <%ae>%n%B", commit) == (
        "Test Author <author@example.com>\n"
        "retrace-fix: 3 fixes for tf.function retracing (RTF002, RTF004)\n"
        "\n"
        "RTF002 predict-to-call (1):\n"
        "- model.py:8: Keras `predict` inside a tf.function fails at trace time; call the model directly\n"
        "\n"
        "RTF004 reduce-retracing (2):\n"
        "- crlf.py:4: `experimental_relax_shapes` is the deprecated name of `reduce_retracing`\n"
        "- pool.py:4: `experimental_relax_shapes` is the deprecated name of `reduce_retracing`\n"
        "\n"
        "Made by retrace-fix 0.1.0; `retrace-fix explain CODE` describes each fix."
    )
    assert [row["branch"] for row in json.loads(out)["roots"]] == [commit]
    assert err.splitlines() == [
        f"note: alpha: dirty.py is not in branch {BRANCH}: it has changes not committed in HEAD "
        "(commit or stash them first)",
        f"note: alpha: new.py is not in branch {BRANCH}: not committed in HEAD",
        f"branch {BRANCH} created in alpha at {commit[:12]}: 3 files, 3 fixes",
    ]


def test_roots_of_one_repository_share_its_commit(workspace):
    code, out, err = run_cli("--branch", BRANCH, "--format", "json", "mono/a", "mono/b", "quiet").outcome
    assert code == 0, err
    rows = {row["root"]: row for row in json.loads(out)["roots"]}
    commit = git(workspace / "mono", "rev-parse", BRANCH)
    assert rows["mono/a"]["branch"] == rows["mono/b"]["branch"] == commit and rows["quiet"]["branch"] is None
    assert git(workspace / "mono", "diff", "--name-only", "main", BRANCH).split() == ["a/x.py", "b/y.py"]
    assert "- a/x.py:4: " in git(workspace / "mono", "log", "-1", "--format=%B", BRANCH)
    assert git(workspace / "quiet", "branch", "--list") == "* main"  # no changes, no branch
    assert err.count("created in") == 1


def test_no_repository_or_a_taken_name_is_an_error_of_that_root(workspace):
    taken = git(workspace / "taken", "rev-parse", BRANCH)
    code, out, err = run_cli("--branch", BRANCH, "plain", "taken", "mono/c").outcome
    assert code == 2
    assert (workspace / "plain" / "p.py").read_text() == RELAX  # never written in place
    assert git(workspace / "taken", "rev-parse", BRANCH) == taken  # never moved
    assert f"retrace-fix: error: plain: no branch {BRANCH}: not in a git repository (no .git at or above " in err
    assert f"retrace-fix: error: taken: no branch {BRANCH}: a branch named {BRANCH} exists already" in err
    assert git(workspace / "mono", "diff", "--name-only", "main", BRANCH) == "c/z.py"  # the others still get theirs
    lines = {line.split()[0]: line.split() for line in err.splitlines() if line.startswith(("plain ", "taken ", "mono/c "))}
    assert lines["plain"][-1] == "1" and lines["taken"][-1] == "1" and lines["mono/c"][-1] == "0"  # errors column
    code, _, err = run_cli("--branch", BRANCH, "mono/c").outcome  # a second run never moves the first one's branch
    assert code == 2 and "exists already" in err


def test_branch_with_patch_dir_writes_both(workspace):
    code, out, err = run_cli("--branch", BRANCH, "--patch-dir", "patches", "mono/a").outcome
    assert code == 0, err
    patch = (workspace / "patches" / "a.patch").read_text()
    assert patch.startswith("--- a/x.py\n+++ b/x.py\n")
    committed = git_bytes(workspace / "mono", "diff", "main", BRANCH, "--", "a/x.py").decode()
    assert committed.split("\n@@", 1)[1] == patch.split("\n@@", 1)[1]  # the same hunks


def test_every_fixed_file_dirty_means_no_branch(workspace):
    alpha = workspace / "alpha"
    for name in ("model.py", "pool.py", "crlf.py"):
        (alpha / name).write_bytes((alpha / name).read_bytes() + b"# edited\n")
    code, _, err = run_cli("--branch", BRANCH, "alpha").outcome
    assert code == 2
    assert f"retrace-fix: error: alpha: no branch {BRANCH}: crlf.py: it has changes not committed in HEAD" in err
    assert git(alpha, "branch", "--list", BRANCH) == ""
