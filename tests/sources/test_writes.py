"""``retrace_fix.sources.writes``, the one module that writes files: where it refuses to, and how it writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from retrace_fix.sources import writes
from retrace_fix.sources.writes import (
    FileChangedError,
    UnsafeTarget,
    create_file,
    delete_file,
    replace_file,
    resolve_target,
    vcs_dir_name,
    write_file,
)
from tests.support.tree_state import changed, digest


@pytest.mark.parametrize(
    ("name", "vcs"),
    [(".git", ".git"), (".GIT", ".git"), (".Git.", ".git"), (".git ", ".git"), (".g\u200cit", ".git"),
     ("\ufeff.git", ".git"), ("GIT~1", ".git"), (".hg", ".hg"), (".HG", ".hg"), (".svn", ".svn"), ("SVN~2", ".svn"),
     ("git", None), (".github", None), (".gitignore", None), ("x.git", None), ("", None)],
)
def test_vcs_directory_names(name, vcs):
    assert vcs_dir_name(name) == vcs


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "a.py").write_text("a = 1\n")
    (root / "gl").symlink_to(".git")
    (root / "cfg").symlink_to(".git/config")
    (root / "out").symlink_to("..")
    return root


@pytest.mark.parametrize(
    "write",
    [
        lambda root: replace_file(root / "cfg", b"evil\n", expected_old=b"[core]\n"),
        lambda root: replace_file(root / "gl" / "config", b"evil\n", expected_old=b"[core]\n"),
        lambda root: create_file(root / "gl" / "hooks" / "pre-commit", b"evil\n"),
        lambda root: create_file(root / "gl" / "new" / "dir" / "x", b"evil\n"),
        lambda root: write_file(root / "gl" / "hooks" / "pre-commit", b"evil\n"),
        lambda root: write_file(root / ".GIT" / "x", b"evil\n", make_parents=True),
        lambda root: delete_file(root / "cfg", b"[core]\n"),
        lambda root: write_file(root / "out" / "outside.txt", b"evil\n", root=root),
        lambda root: create_file(root / "out" / "outside.txt", b"evil\n", root=root),
    ],
)
def test_refused_targets_change_nothing(repo, write):
    before = digest(repo.parent)
    with pytest.raises(UnsafeTarget):
        write(repo)
    assert changed(before, digest(repo.parent)) == []


def test_resolve_target_follows_the_last_link_only_when_asked(repo):
    assert resolve_target(repo / "a.py") == os.path.join(os.path.realpath(repo), "a.py")
    with pytest.raises(UnsafeTarget):
        resolve_target(repo / "cfg")
    (repo / "link.json").symlink_to(".git/config")
    assert resolve_target(repo / "link.json", follow=False) == os.path.join(os.path.realpath(repo), "link.json")


def test_write_file_replaces_a_link_instead_of_following_it(repo):
    (repo / "out.json").symlink_to(".git/config")
    write_file(repo / "out.json", b"{}\n")
    assert not (repo / "out.json").is_symlink() and (repo / "out.json").read_bytes() == b"{}\n"
    assert (repo / ".git" / "config").read_text() == "[core]\n"


def test_a_directory_swapped_for_a_link_after_the_check_is_refused(repo, monkeypatch):
    (repo / "pkg").mkdir()
    (repo / "pkg" / "m.py").write_text("m = 1\n")
    real_resolve = writes.resolve_target

    def resolve_then_swap(path, root=None, follow=True):
        resolved = real_resolve(path, root, follow)
        os.rename(repo / "pkg", repo / "pkg.moved")
        (repo / "pkg").symlink_to(".git")
        (repo / ".git" / "m.py").write_text("m = 1\n")
        return resolved

    monkeypatch.setattr(writes, "resolve_target", resolve_then_swap)
    with pytest.raises(UnsafeTarget):
        replace_file(repo / "pkg" / "m.py", b"m = 2\n", expected_old=b"m = 1\n")
    assert (repo / ".git" / "m.py").read_text() == "m = 1\n"


def test_replace_file_follows_a_link_and_keeps_mode(tmp_path):
    (tmp_path / "real.py").write_text("x = 1\n")
    os.chmod(tmp_path / "real.py", 0o751)
    (tmp_path / "alias.py").symlink_to("real.py")
    replace_file(tmp_path / "alias.py", b"x = 2\n", expected_old=b"x = 1\n")
    assert (tmp_path / "alias.py").is_symlink()
    assert (tmp_path / "real.py").read_bytes() == b"x = 2\n"
    assert stat.S_IMODE(os.stat(tmp_path / "real.py").st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias.py", "real.py"]


def test_replace_file_refuses_a_changed_or_read_only_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(FileChangedError, match="changed on disk during the run; not written"):
        replace_file(tmp_path / "a.py", b"x = 2\n", expected_old=b"x = 0\n")
    os.chmod(tmp_path / "a.py", 0o444)
    try:
        with pytest.raises(FileChangedError, match="read-only"):
            replace_file(tmp_path / "a.py", b"x = 2\n", expected_old=b"x = 1\n")
    finally:
        os.chmod(tmp_path / "a.py", 0o644)
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_create_file_never_replaces_and_uses_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        create_file(tmp_path / "new" / "deep" / "x.py", b"x = 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new" / "deep" / "x.py").st_mode) == 0o640
    with pytest.raises(FileExistsError):
        create_file(tmp_path / "new" / "deep" / "x.py", b"x = 2\n")
    assert (tmp_path / "new" / "deep" / "x.py").read_text() == "x = 1\n"
    (tmp_path / "f.py").write_text("")
    with pytest.raises(writes.WriteRefused, match="f.py: not a directory"):
        create_file(tmp_path / "f.py" / "x.py", b"")


def test_write_file_needs_the_directory_unless_asked(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_file(tmp_path / "gone" / "x.json", b"{}")
    assert not (tmp_path / "gone").exists()
    write_file(tmp_path / "made" / "x.json", b"{}", make_parents=True)
    assert (tmp_path / "made" / "x.json").read_bytes() == b"{}"


def test_delete_file_only_deletes_what_was_read(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    with pytest.raises(FileChangedError, match="not deleted"):
        delete_file(tmp_path / "a.py", b"x = 0\n")
    delete_file(tmp_path / "a.py", b"x = 1\n")
    assert list(tmp_path.iterdir()) == []


def test_an_edit_while_a_file_is_renamed_aside_for_deletion_puts_it_back(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")
    real_replace = writes._Directory.replace

    def edit_then_replace(self, src, dst):
        if src == "a.py":
            with open(tmp_path / "a.py", "a") as handle:
                handle.write("y = 2\n")
        return real_replace(self, src, dst)

    monkeypatch.setattr(writes._Directory, "replace", edit_then_replace)
    with pytest.raises(FileChangedError, match="the edit was kept, not deleted"):
        delete_file(tmp_path / "a.py", b"x = 1\n")
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"]
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n"


def test_each_run_sweeps_a_directory_again(tmp_path):
    """Stale temporary files are swept once per directory and run: a later run in the same process
    (a directory may be removed and made again with an inode an earlier run swept) sweeps again."""
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = f".a.py.{int(dead.stdout)}-0123abcd{writes.TEMP_SUFFIX}"
    (tmp_path / "a.py").write_text("a = 1\n")
    writes.forget_swept_directories()
    write_file(tmp_path / "a.py", b"a = 2\n")  # the first write sweeps the directory
    (tmp_path / stale).write_bytes(b"left by a writer that died")
    write_file(tmp_path / "a.py", b"a = 3\n")
    assert (tmp_path / stale).exists()  # swept already in this run
    writes.forget_swept_directories()
    write_file(tmp_path / "a.py", b"a = 4\n")
    assert not (tmp_path / stale).exists() and (tmp_path / "a.py").read_text() == "a = 4\n"
