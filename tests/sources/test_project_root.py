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
