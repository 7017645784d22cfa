"""One project root for the recorder and the fixer: the join key of a trace file."""

from __future__ import annotations

import os
from pathlib import Path

from retrace_fix.sources import discovery
from retrace_fix.sources.discovery import ENV_PROJECT_ROOT, find_project_root
from retrace_fix.engine.run import make_jobs
from retrace_fix.traces import process_recorder, recorder
from retrace_fix.traces.frames import relative_source_path


def test_the_recorder_asks_the_same_function():
    assert recorder.find_project_root is discovery.find_project_root
    assert process_recorder.ENV_PROJECT_ROOT == ENV_PROJECT_ROOT == "RETRACE_FIX_PROJECT_ROOT"


def test_nearest_git_ancestor_of_a_file_or_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_PROJECT_ROOT, raising=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir(parents=True)
    (repo / "pkg" / "sub" / "m.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert find_project_root(repo / "pkg" / "sub") == str(repo)
    assert find_project_root(repo / "pkg" / "sub" / "m.py") == str(repo)
    assert find_project_root(repo / "pkg" / "missing.py") == str(repo)
    monkeypatch.chdir(repo / "pkg")
    assert find_project_root() == str(repo)


def test_without_git_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_PROJECT_ROOT, raising=False)
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a")
    assert find_project_root(tmp_path / "a" / "b") == os.path.realpath(tmp_path / "a")
    assert find_project_root() == os.path.realpath(tmp_path / "a")


def test_the_variable_wins_and_links_are_resolved(tmp_path, monkeypatch):
    real = tmp_path / "real"
    (real / ".git").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.delenv(ENV_PROJECT_ROOT, raising=False)
    assert find_project_root(link) == str(real)
    monkeypatch.setenv(ENV_PROJECT_ROOT, str(link))
    assert find_project_root(tmp_path) == str(real)


def test_fixer_and_recorder_name_a_file_alike_through_a_linked_checkout(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_PROJECT_ROOT, raising=False)
    real = tmp_path / "real"
    (real / ".git").mkdir(parents=True)
    (real / "src").mkdir()
    (real / "src" / "model.py").write_text("x = 1\n")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(link)
    recorded = relative_source_path(str(link / "src" / "model.py"), find_project_root())
    [job] = make_jobs([Path(os.path.abspath("src/model.py"))])
    assert recorded == job.relpath == "src/model.py"


# ----------------------------------------------------------------------------- paths on strings


def test_posix_relative_is_pathlibs_relative_to():
    from pathlib import PurePosixPath

    from retrace_fix.sources.discovery import posix_relative

    pairs = [("/a/b/c.py", "/a/b"), ("/a/b", "/a/b"), ("/a/bc/d.py", "/a/b"), ("/a/b/c.py", "/"), ("/", "/"),
             ("/x/y.py", "/a"), ("/a/b/../c.py", "/a"), ("//a/b.py", "/a")]
    for path, base in pairs:
        try:
            expected = PurePosixPath(path).relative_to(base).as_posix()
        except ValueError:
            expected = None
        got = posix_relative(str(PurePosixPath(path)), str(PurePosixPath(base)))
        assert got is None or got == expected, (path, base, got, expected)
    assert posix_relative("/a/b/c.py", "/a") == "b/c.py" and posix_relative("/ab/c.py", "/a") is None
    assert posix_relative("a/b.py", "/a") is None  # a relative path: pathlib decides


def test_walked_and_linked_files_keep_their_resolved_paths(tmp_path, monkeypatch):
    """Discovery and the jobs resolve a walked file from its directory's realpath (one per directory);
    a file named through a link, and a linked checkout, still get realpath's answer."""
    monkeypatch.delenv(ENV_PROJECT_ROOT, raising=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg" / "sub").mkdir(parents=True)
    (repo / "pkg" / "sub" / "m.py").write_text("x = 1\n")
    (repo / "pkg" / "n.py").write_text("y = 1\n")
    (repo / "pkg" / "link.py").symlink_to(repo / "pkg" / "sub" / "m.py")  # not walked: a link
    (tmp_path / "linked").symlink_to(repo)
    monkeypatch.chdir(tmp_path)
    found = discovery.discover_roots(["linked/pkg", "repo"], [])
    assert [discovery.display_path(p) for p in found.files] == ["linked/pkg/n.py", "linked/pkg/sub/m.py"]
    assert found.real == {p: os.path.realpath(p) for p in found.files}
    named = discovery.discover(["repo/pkg/link.py"], [])
    jobs = make_jobs([*found.files, *named.files])
    assert [(j.display, j.relpath) for j in jobs] == [
        ("linked/pkg/n.py", "pkg/n.py"), ("linked/pkg/sub/m.py", "pkg/sub/m.py"), ("repo/pkg/link.py", "pkg/sub/m.py"),
    ]
