"""Hostile patches against ``retrace-fix apply`` (issue 14, items 1, 2 and 7): nothing outside the
root and nothing inside a version-control directory ever changes.

Every test hashes the tree and its parent before and after (``tests/support/tree_state.py``).
The property test at the end throws random and mutated patches at a tree that
holds every trap at once: links into ``.git``, to ``.git/hooks``, out of the
root, odd spellings of ``.git``, ``..``, absolute paths, NUL bytes, huge hunks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrace_fix.patch import apply_text as patches_module
from retrace_fix.patch.diffs import unified_diff as quoted_diff
from retrace_fix.patch.apply_files import apply_patches
from retrace_fix.patch.apply_text import apply_hunks
from retrace_fix.patch.parse import parse_patch
from tests.support.tree_state import changed, digest
from tests.support.cli_runner import run_cli

REPO = Path(__file__).resolve().parents[2]
OLD = "".join(f"line {i}\n" for i in range(1, 11))
NEW = OLD.replace("line 5\n", "LINE 5\n")


def unified_diff(old: str, new: str, path: str) -> str:
    return quoted_diff(old, new, path, quoted=True)


def git_repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


# --------------------------------------------------------------------------- item 1: links into .git


def test_the_issue_command_exits_2_and_writes_nothing(tmp_path):
    """The exact commands of issue 14, item 1 (a fsmonitor hook planted through a link to .git)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    script = (
        "git init -q root && ln -s .git root/gl && "
        "printf -- '--- a/gl/config\\n+++ b/gl/config\\n@@ -1,1 +1,2 @@\\n [core]\\n"
        "+\\tfsmonitor = \"touch PWNED; false\"\\n' > p.patch"
    )
    subprocess.run(["bash", "-c", script], cwd=tmp_path, check=True)
    before = digest(tmp_path)
    done = run_cli("apply", "--root", "root", "p.patch", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"retrace-fix: error: p.patch: refused: gl/config: resolves inside .git ({(tmp_path / 'root' / '.git' / 'config').resolve()})",
        "retrace-fix: nothing was written",
    ]
    assert done.stdout == ""
    assert changed(before, digest(tmp_path)) == []
    assert "fsmonitor" not in (tmp_path / "root" / ".git" / "config").read_text()


@pytest.mark.parametrize(
    ("links", "path", "expected"),
    [
        ({"hk": ".git/hooks"}, "hk/pre-commit", ".git"),  # a new hook, created through a linked directory
        ({"cfg": ".git/config"}, "cfg", ".git"),  # a link to the file itself
        ({"a": "b", "b": ".git"}, "a/config", ".git"),  # a chain of links
        ({"up": "..", "cfg": ".git/config"}, "up/root/cfg", ".git"),  # out of the root and back in
        ({"GL": ".GIT"}, "GL/config", ".git"),  # odd case: .GIT is .git on a case-insensitive disk
        ({"hg": ".hg"}, "hg/hgrc", ".hg"),
        ({"svn": ".Svn"}, "svn/entries", ".svn"),
    ],
)
def test_links_into_vcs_directories_are_refused(tmp_path, links, path, expected):
    root = git_repo(tmp_path / "root")
    for vcs in (".GIT", ".hg", ".Svn"):
        if not (root / vcs).exists():  # .GIT is .git itself on a case-insensitive disk
            (root / vcs).mkdir()
            (root / vcs / "hgrc").write_text("[core]\n")
            (root / vcs / "entries").write_text("[core]\n")
            (root / vcs / "config").write_text("[core]\n")
    for name, target in links.items():
        (root / name).symlink_to(target)
    new_file = path.endswith("pre-commit")
    text = "[core]\n"
    diff = unified_diff("" if new_file else text, text + "\tfsmonitor = evil\n", path)
    if new_file:
        diff = diff.replace(f"--- a/{path}", "--- /dev/null")
    (tmp_path / "p.patch").write_text(diff)
    before = digest(tmp_path)
    code, out, err = run_cli("apply", "--root", str(root), str(tmp_path / "p.patch")).outcome
    assert code == 2
    assert f"refused: {path}: resolves inside {expected} (" in err
    assert err.endswith("retrace-fix: nothing was written\n")
    assert out == ""
    assert changed(before, digest(tmp_path)) == []


@pytest.mark.parametrize("name", [".GIT/config", ".Git./config", ".g\u200cit/config", "GIT~1/config", "a/.HG/x", ".svn/x"])
def test_vcs_directory_spellings_in_the_patch_are_refused(tmp_path, name):
    root = git_repo(tmp_path / "root")
    (tmp_path / "p.patch").write_text(unified_diff(OLD, NEW, name))
    before = digest(tmp_path)
    code, _, err = run_cli("apply", "--root", str(root), str(tmp_path / "p.patch")).outcome
    assert code == 2 and f"refused: {name}: inside ." in err
    assert changed(before, digest(tmp_path)) == []


def test_a_root_inside_git_is_refused(tmp_path):
    root = git_repo(tmp_path / "root")
    (tmp_path / "p.patch").write_text(unified_diff("", "x = 1\n", "hooks/post-checkout").replace(
        "--- a/hooks/post-checkout", "--- /dev/null"))
    before = digest(tmp_path)
    code, _, err = run_cli("apply", "--root", str(root / ".git"), str(tmp_path / "p.patch")).outcome
    assert code == 2 and "resolves inside .git" in err
    assert changed(before, digest(tmp_path)) == []


# --------------------------------------------------------------------------- item 7: a.py/x.py


def test_creating_a_file_under_a_regular_file_is_an_error_not_a_race(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.py").write_text(OLD)
    diff = unified_diff("", "x = 1\n", "a.py/x.py").replace("--- a/a.py/x.py", "--- /dev/null")
    (tmp_path / "p.patch").write_text(diff + unified_diff(OLD, NEW, "b.py"))
    (root / "b.py").write_text(OLD)
    before = digest(tmp_path)
    code, out, err = run_cli("apply", "--root", str(root), str(tmp_path / "p.patch")).outcome
    assert code == 2
    assert "error: a.py/x.py: cannot be created: a.py is not a directory\n" in err
    assert "appeared on disk" not in err
    assert out == "b.py: patched (1 hunk)\n"
    assert changed(before, digest(tmp_path)) == ["root/b.py"]


# --------------------------------------------------------------------------- item 2: bounded hunk search


class CountingLines(list):
    """A file's lines that count every line read, single or in a slice."""

    reads = 0

    def __getitem__(self, index):
        value = super().__getitem__(index)
        CountingLines.reads += len(value) if isinstance(index, slice) else 1
        return value

    def __iter__(self):
        CountingLines.reads += len(self)
        return super().__iter__()


def test_hunks_that_match_nowhere_cost_a_bounded_number_of_line_reads(monkeypatch):
    """100 hunks that do not match on a 20,000-line file: line reads stay linear in file + patch.

    A full scan per hunk (the old search) reads about 100 x 20,000 x 2 x 3 lines.
    The bound is checked by counting, not by timing.
    """
    lines = 20_000
    text = "".join(f"x = {i}\n" for i in range(lines))
    patch = ["--- a/a.py\n", "+++ b/a.py\n"]
    for h in range(100):
        start = h * 200 + 1
        patch += [f"@@ -{start},3 +{start},3 @@\n", f" x = {start - 1}\n", f"-nope {h}\n", "+new\n", f" x = {start + 1}\n"]
    hunks = parse_patch("".join(patch))[0].hunks
    original_split = patches_module.split_lines
    monkeypatch.setattr(patches_module, "split_lines", lambda t: CountingLines(original_split(t)))
    CountingLines.reads = 0
    outcome = apply_hunks(text, hunks)
    assert not outcome.ok and not any(r.applied for r in outcome.hunks)
    assert CountingLines.reads <= 4 * lines + 50 * 4 * len(hunks), CountingLines.reads


def test_hunks_of_lines_that_occur_everywhere_stop_at_the_budget():
    """Pathological hunks (every line common, no match) are rejected, not searched for ever."""
    text = "a\nb\n" * 50_000
    patch = ["--- a/b.py\n", "+++ b/b.py\n"]
    for h in range(30):
        start = h * 1000 + 1
        patch += [f"@@ -{start},40 +{start},40 @@\n"] + [" a\n"] * 20 + [" b\n", " b\n"] + [" a\n"] * 18
    outcome = apply_hunks(text, parse_patch("".join(patch))[0].hunks)
    assert not outcome.ok and outcome.search_exhausted


@pytest.mark.parametrize(("start", "offset"), [(104, -3), (106, -5), (108, +3), (101, 0), (112, -1)])
def test_the_search_still_finds_the_nearest_match(start, offset):
    """The same answer a full scan gives: nearest first, the earlier one on a tie."""
    lines = [f"{i}\n" for i in range(200)]
    lines[100:102] = lines[110:112] = ["x\n", "y\n"]
    hunk = f"--- a/f\n+++ b/f\n@@ -{start},2 +{start},2 @@\n x\n-y\n+Y\n"
    outcome = apply_hunks("".join(lines), parse_patch(hunk)[0].hunks)
    assert outcome.ok and outcome.hunks[0].offset == offset
    assert outcome.text.count("Y\n") == 1 and outcome.text.split("\n").index("Y") == start + offset


# --------------------------------------------------------------------------- property: random hostile patches

#: Path components the generated patches are made of: ordinary names, traps, and links planted in the tree.
COMPONENTS = [
    "a.py", "pkg", "b.py", "new.py", "..", ".", ".git", ".GIT", ".Git.", ".g\u200cit", "GIT~1", ".hg", ".svn",
    "gl", "hk", "out", "cfg", "up", "root", "hooks", "config", "pre-commit", "x\x00y", "a\\b", "",
]


def _plant(top: Path) -> Path:
    root = top / "root"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    (root / ".hg").mkdir()
    (root / ".hg" / "hgrc").write_text("[ui]\n")
    (root / "pkg").mkdir()
    (root / "a.py").write_text(OLD)
    (root / "pkg" / "b.py").write_text(OLD)
    (top / "outside").mkdir()
    (top / "outside" / "a.py").write_text(OLD)
    (root / "gl").symlink_to(".git")
    (root / "hk").symlink_to(".git/hooks")
    (root / "cfg").symlink_to(".git/config")
    (root / "out").symlink_to("../outside")
    (root / "up").symlink_to("..")
    return root


def _outside_and_vcs(top: Path) -> dict:
    """Everything that must never change: all of ``top`` but the root, and the root's VCS directories."""
    state = {k: v for k, v in digest(top).items() if not (k == "root" or k.startswith("root" + os.sep))}
    for vcs in (".git", ".hg"):
        state.update({f"{vcs}/{k}": v for k, v in digest(top / "root" / vcs).items()})
        state[vcs] = digest(top / "root").get(vcs)
    return state


paths = st.one_of(
    st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=4).map("/".join),
    st.sampled_from(["/etc/passwd", "C:/x.py", "~/x.py", "gl/config", "hk/pre-commit", "out/a.py", "up/root/.git/config"]),
)
bodies = st.one_of(
    st.just((OLD, NEW)),
    st.just(("", "x = 1\n")),  # a new file
    st.just((OLD, "")),  # a deleted file
    st.just(("[core]\n", "[core]\n\tfsmonitor = evil\n")),
    st.integers(1, 20_000).map(lambda n: ("", "".join(f"{i}\n" for i in range(n)))),  # a huge hunk
    st.text(alphabet="ab\n\r\x00", max_size=40).map(lambda t: (t, t + "z\n")),
)


@st.composite
def patches(draw) -> str:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(paths)
        old, new = draw(bodies)
        diff = unified_diff(old, new, path) or f"--- a/{path}\n+++ b/{path}\n"
        if not old:
            diff = diff.replace(f"--- a/{path}", "--- /dev/null", 1)
        if not new:
            diff = diff.replace(f"+++ b/{path}", "+++ /dev/null", 1)
        if draw(st.booleans()):  # mutate: shift the hunk, drop or duplicate a line
            lines = diff.splitlines(keepends=True)
            index = draw(st.integers(0, len(lines) - 1))
            lines.insert(index, lines[index]) if draw(st.booleans()) else lines.pop(index)
            diff = "".join(lines)
        out.append(diff)
    return "".join(out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(patch=patches(), dry_run=st.booleans())
def test_no_patch_changes_anything_outside_the_root_or_inside_git(patch, dry_run):
    with tempfile.TemporaryDirectory() as temp:
        top = Path(temp)
        root = _plant(top)
        (top / "p.patch").write_text(patch, encoding="utf-8", errors="surrogateescape")
        before = _outside_and_vcs(top)
        before_root = digest(root)
        out, err = _Sink(), _Sink()
        code = apply_patches([str(top / "p.patch")], root, dry_run=dry_run, out=out, err=err)
        assert code in (0, 1, 2)
        assert _outside_and_vcs(top) == before, err.text
        if code == 2 and "nothing was written" in err.text or dry_run:
            assert digest(root) == before_root
        for name in changed(before_root, digest(root)):
            assert not name.endswith(".retrace-tmp")


class _Sink:
    def __init__(self):
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text
