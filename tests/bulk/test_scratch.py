"""Where a git root's clone is made (:mod:`retrace_fix.bulk.scratch`): a memory file system with room,
the disk otherwise or when the clone filled it, or the directory ``RETRACE_FIX_SCRATCH`` names."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from retrace_fix.bulk import root_task, scratch
from retrace_fix.bulk.git_sources import CloneError, GitSource
from retrace_fix.bulk.root_task import RootTask, TaskSettings, process_root
from retrace_fix.engine.options import RunOptions
from tests.bulk.test_run import RELAX
from tests.support.gitrepos import new_repo

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)



@pytest.fixture
def places(tmp_path, monkeypatch):
    """A stand-in memory file system with room (``mem``) and a disk (``disk``: the temporary directory)."""
    memory, disk = tmp_path / "mem", tmp_path / "disk"
    memory.mkdir()
    disk.mkdir()
    monkeypatch.delenv(scratch.SCRATCH_ENV, raising=False)
    monkeypatch.setattr(scratch, "MEMORY_SCRATCH", str(memory))
    monkeypatch.setattr(scratch, "MEMORY_RESERVE", 0)
    monkeypatch.setattr(tempfile, "tempdir", str(disk))
    return memory, disk


def _task(tmp_path: Path) -> RootTask:
    source = new_repo(tmp_path / "origin" / "trainer", {"model.py": RELAX})
    return RootTask(0, source.as_uri(), "trainer", source=GitSource(source.as_uri()))


def _settings() -> TaskSettings:
    return TaskSettings(options=RunOptions(), excludes=(), clone_excludes=(), cwd=str(Path.cwd()))


def _recorded_clones(monkeypatch, fail=lambda made: None) -> list[Path]:
    """Where each clone of the root is made, in order (``root_task.clone`` wrapped); ``fail(made)``
    runs before each clone and may raise instead, as a failing git would."""
    made: list[Path] = []
    real_clone = root_task.clone

    def clone(source, dest, *args, **kwargs):
        made.append(Path(dest))
        fail(made)
        return real_clone(source, dest, *args, **kwargs)

    monkeypatch.setattr(root_task, "clone", clone)
    return made


def test_the_memory_file_system_comes_first_while_it_has_room(places, monkeypatch):
    memory, _ = places
    assert scratch.scratch_bases() == [str(memory), None]
    monkeypatch.setattr(scratch, "MEMORY_RESERVE", 1 << 62)  # less free than the reserve: the disk only
    assert scratch.scratch_bases() == [None]


def test_a_directory_named_in_the_environment_takes_every_clone(places, tmp_path, monkeypatch):
    monkeypatch.setenv(scratch.SCRATCH_ENV, str(tmp_path / "chosen"))
    assert scratch.scratch_bases() == [str(tmp_path / "chosen")]


def test_a_clone_is_made_processed_and_removed_on_the_memory_file_system(places, tmp_path, monkeypatch):
    memory, disk = places
    made = _recorded_clones(monkeypatch)
    outcome = process_root(_task(tmp_path), _settings())
    scratch.wait_for_scratch()
    assert [r.path for r in outcome.files if r.changed] == ["trainer/model.py"]
    assert len(made) == 1 and made[0].is_relative_to(memory)
    assert list(memory.iterdir()) == [] and list(disk.iterdir()) == []


def test_a_clone_that_fills_the_memory_file_system_is_made_again_on_the_disk(places, tmp_path, monkeypatch):
    memory, disk = places

    def fill_memory(made):
        if len(made) == 1:  # as git's checkout fails when the file system is full: no room left
            monkeypatch.setattr(scratch, "MEMORY_RESERVE", 1 << 62)
            raise CloneError("cannot clone: error: unable to write file model.py")

    made = _recorded_clones(monkeypatch, fill_memory)
    outcome = process_root(_task(tmp_path), _settings())
    scratch.wait_for_scratch()
    assert [dest.is_relative_to(memory) for dest in made] == [True, False]
    assert made[1].is_relative_to(disk)
    assert [r.path for r in outcome.files if r.changed] == ["trainer/model.py"]
    assert list(memory.iterdir()) == [] and list(disk.iterdir()) == []


def test_a_clone_that_fails_with_room_left_is_not_made_again(places, tmp_path, monkeypatch):
    memory, disk = places

    def not_found(made):
        raise CloneError("cannot clone: fatal: repository not found")

    made = _recorded_clones(monkeypatch, not_found)
    with pytest.raises(CloneError, match="repository not found"):
        process_root(_task(tmp_path), _settings())
    scratch.wait_for_scratch()
    assert len(made) == 1 and list(memory.iterdir()) == [] and list(disk.iterdir()) == []


def _dead_pid() -> int:
    import os

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_clones_left_by_processes_that_died_are_swept_and_no_others(places, monkeypatch):
    """A worker killed mid-root leaves its clone on the memory file system, which nothing else
    cleans: the next process to clone there (or the coordinator, when its workers have ended)
    removes it; clones of live processes, of another machine, and other files stay."""
    import os

    memory, _ = places
    host = scratch._host()
    dead = _dead_pid()
    names = {
        "orphan": f"retrace-fix-{host}-{dead}-abc123",
        "alive": f"retrace-fix-{host}-{os.getpid()}-def456",
        "elsewhere": f"retrace-fix-otherhost-{dead}-ghi789",
        "unrelated": "retrace-fixtures",
    }
    for name in names.values():
        (memory / name / "trainer").mkdir(parents=True)
        (memory / name / "trainer" / "model.py").write_text("x = 1\n")
    monkeypatch.setattr(scratch, "_SWEPT", set())
    assert scratch.scratch_bases() == [str(memory), None]  # the process's first look sweeps
    assert sorted(p.name for p in memory.iterdir()) == sorted(names[k] for k in ("alive", "elsewhere", "unrelated"))
    assert scratch.scratch_prefix() == f"retrace-fix-{host}-{os.getpid()}-"
