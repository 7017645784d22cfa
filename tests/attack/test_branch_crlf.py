"""``--branch`` on a ``core.autocrlf=true`` checkout, and what its summary says (issue 26, item 6).

* A checkout that git shows clean (CRLF in the working tree, LF in the repository) gets its
  branch: before, every file was "left out: it has changes not committed in HEAD".  The
  commit stores LF, as ``git add`` would, and differs from HEAD only by the fix.
* The summary says what was committed to the branch, never "N files changed" (no file of
  the working tree is written by ``--branch``); a root that gets no branch says 0 committed.
"""

from __future__ import annotations

from tests.support.cli_runner import run_cli
from tests.support.gitrepos import git, new_repo, state
from tests.bulk.test_run import RELAX


def crlf_checkout(path):
    repo = new_repo(path, {"model.py": RELAX, "other.py": RELAX.replace("mean_pool", "sum_pool")})
    git(repo, "config", "core.autocrlf", "true")
    for name in ("model.py", "other.py"):
        (repo / name).unlink()
    git(repo, "checkout", "--", ".")
    assert b"\r\n" in (repo / "model.py").read_bytes()
    assert git(repo, "status", "--porcelain") == ""  # git shows it clean
    return repo


def test_branch_on_a_clean_autocrlf_checkout_commits_the_fixes(tmp_path):
    repo = crlf_checkout(tmp_path / "repo")
    before = state(repo)
    tree_bytes = (repo / "model.py").read_bytes()
    code, out, err = run_cli("--branch", "fixes", ".", cwd=repo).outcome
    assert code == 0, err
    assert "has changes not committed" not in err
    assert "2 files committed to branch fixes, 2 fixes; working tree unchanged" in err
    assert state(repo) == before and (repo / "model.py").read_bytes() == tree_bytes
    committed = git(repo, "show", "fixes:model.py")
    assert "\r" not in committed and "reduce_retracing=True" in committed
    diff = git(repo, "diff", "HEAD", "fixes", "--stat")
    assert "2 files changed, 2 insertions(+), 2 deletions(-)" in diff


def test_branch_summary_says_nothing_was_committed_when_nothing_was(tmp_path):
    repo = new_repo(tmp_path / "repo", {"model.py": RELAX})
    (repo / "model.py").write_text(RELAX + "\n# local edit\n")  # uncommitted: left out of the branch
    code, out, err = run_cli("--branch", "fixes", ".", cwd=repo).outcome
    assert code == 2
    assert "1 file changed" not in err and "fixes applied" not in err
    assert "0 files committed to branch fixes, 0 fixes; working tree unchanged" in err
    assert "1 error" in err
    assert "experimental_relax_shapes" in (repo / "model.py").read_text()


def test_branch_json_summary_says_what_was_committed(tmp_path):
    import json

    repo = new_repo(tmp_path / "repo", {"model.py": RELAX})
    code, out, err = run_cli("--branch", "fixes", "--format", "json", ".", cwd=repo).outcome
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["committed_files"] == 1 and summary["committed_fixes"] == 1
    assert summary["text"].startswith("1 file committed to branch fixes, 1 fix; working tree unchanged")
