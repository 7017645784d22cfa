"""Clones made ahead while a ``--scheduler local`` run starts (:mod:`retrace_fix.bulk.clone_ahead`):
which roots the cloner takes, the claims that keep it and the workers apart, a worker taking a
ready clone (the same outcome as its own clone), and the cloner's process (lowest priority, ended
with its git, nothing left behind)."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from retrace_fix.bulk import clone_ahead, scratch
from retrace_fix.bulk.clone_ahead import clones_ahead, key, take
from retrace_fix.bulk.git_sources import GitSource, parse_git_root
from retrace_fix.bulk.root_task import RootTask, TaskSettings, process_root, wait_for_scratch
from retrace_fix.engine.options import RunOptions
from tests.bulk.test_run import PREDICT, RELAX
from tests.support.gitrepos import git, new_repo

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)


@pytest.fixture
def origins(tmp_path):
    """Three repositories on this machine, as the ``file://`` URLs a run is given (one at a tag)."""
    made = []
    for name, files in (("alpha", {"a.py": RELAX}), ("bravo", {"b.py": PREDICT, "sub/c.py": RELAX}),
                        ("charlie", {"c.py": RELAX})):
        made.append(new_repo(tmp_path / "origin" / name, files))
    git(made[1], "tag", "v1")
    return [made[0].as_uri(), f"{made[1].as_uri()}@v1", made[2].as_uri()]


@pytest.fixture
def ahead(tmp_path, monkeypatch):
    """The cloner's directory, in a scratch place of the test's own."""
    monkeypatch.setenv(scratch.SCRATCH_ENV, str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    directory = tmp_path / "scratch" / "ahead"
    directory.mkdir()
    return directory


def _roots(entries):
    return clone_ahead._local_roots(entries)


def _settings(directory=None):
    return TaskSettings(options=RunOptions(), excludes=(), clone_excludes=(), cwd=str(Path.cwd()),
                        ahead=None if directory is None else str(directory))


def _task(index, entry):
    source = parse_git_root(entry)
    return RootTask(index, entry, source.repo_name, source=source)


def _comparable(outcome):
    return outcome.commit, [(r.path, r.changed, r.fixed, [f.code for f in r.findings]) for r in outcome.files]


def test_only_git_urls_of_repositories_on_this_machine_are_cloned_ahead(origins, tmp_path):
    entries = [*origins, origins[0], str(tmp_path / "origin" / "alpha"), "https://example.com/org/repo.git",
               (tmp_path / "nowhere").as_uri(), "--scheduler", "local", "file:///-bad url"]
    roots = _roots(entries)
    assert [(url, rev) for _, url, rev in roots] == [
        (origins[0], None), (origins[1].rsplit("@", 1)[0], "v1"), (origins[2], None)]  # once each, in order
    assert [name for name, _, _ in roots] == [key(parse_git_root(entry)) for entry in origins]


def test_a_root_cloned_ahead_is_taken_and_gives_what_its_own_clone_gives(origins, ahead):
    clone_ahead.clone_ahead(ahead, _roots(origins))
    assert sorted(p.name for p in ahead.iterdir()) == sorted(
        f"{key(parse_git_root(e))}.{what}" for e in origins for what in ("claim", "ready"))
    for index, entry in enumerate(origins):
        own = process_root(_task(index, entry), _settings())
        taken = process_root(_task(index, entry), _settings(ahead))
        assert _comparable(taken) == _comparable(own) and taken.files
    wait_for_scratch()
    # every clone taken and removed after its root; only the claims are left
    assert sorted(p.name for p in ahead.iterdir()) == sorted(f"{key(parse_git_root(e))}.claim" for e in origins)


def test_the_cloner_stops_at_the_first_root_a_worker_claimed(origins, ahead):
    assert take(str(ahead), parse_git_root(origins[1])) is None  # a worker reached bravo first: it clones
    clone_ahead.clone_ahead(ahead, _roots(origins))  # from the last: charlie, then stops at bravo
    ready = [entry for entry in origins if (ahead / f"{key(parse_git_root(entry))}.ready").is_dir()]
    assert ready == [origins[2]]
    assert take(str(ahead), parse_git_root(origins[0])) is None  # never cloned ahead: the worker clones


def test_a_clone_not_ready_or_taken_before_is_made_by_its_task(origins, ahead):
    source = parse_git_root(origins[0])
    os.mkdir(ahead / f"{key(source)}.claim")  # the cloner is making it
    assert take(str(ahead), source) is None
    clone_ahead.clone_ahead(ahead, _roots(origins[:1]))  # claimed: nothing more is cloned
    assert not (ahead / f"{key(source)}.ready").exists()
    other = parse_git_root(origins[2])
    clone_ahead.clone_ahead(ahead, _roots(origins[2:]))
    first = take(str(ahead), other)
    assert first is not None and first[1].joinpath("c.py").is_file()
    assert take(str(ahead), other) is None  # a second try of the task (the first worker died): it clones


def test_the_cloner_holds_no_more_than_its_limit(origins, ahead, monkeypatch):
    monkeypatch.setattr(clone_ahead, "HELD_LIMIT", 1)
    clone_ahead.clone_ahead(ahead, _roots(origins))
    assert len(list(ahead.glob("*.ready"))) == 1  # the last root; then the limit is reached


def test_the_cloner_stops_when_the_coordinator_is_gone(origins, ahead, monkeypatch):
    parents = iter([1000, 1000, 1])  # the parent seen at the start, before the first root, before the second
    monkeypatch.setattr(os, "getppid", lambda: next(parents))
    clone_ahead.clone_ahead(ahead, _roots(origins))
    assert len(list(ahead.glob("*.ready"))) == 1


def test_a_failed_clone_is_left_to_its_task(origins, ahead, tmp_path):
    shutil.rmtree(tmp_path / "origin" / "charlie" / ".git" / "objects" / "pack")  # objects missing
    broken = tmp_path / "origin" / "charlie" / ".git" / "objects"
    for entry in broken.iterdir():
        if entry.is_dir() and entry.name != "info":
            shutil.rmtree(entry)
    (broken / "pack").mkdir()
    clone_ahead.clone_ahead(ahead, _roots(origins))
    assert not (ahead / f"{key(parse_git_root(origins[2]))}.part").exists()
    assert not (ahead / f"{key(parse_git_root(origins[2]))}.ready").exists()
    assert len(list(ahead.glob("*.ready"))) == 2  # it went on with the others


def _slow_git(tmp_path: Path) -> Path:
    """A ``git`` first on PATH whose ``checkout`` writes its pid and waits (a large root's checkout)."""
    real = shutil.which("git")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        '  if [ "$arg" = checkout ]; then echo $$ > "%s"; exec sleep 60; fi\n'
        "done\n"
        'exec "%s" "$@"\n' % (tmp_path / "git.pid", real)
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def _wait_for(predicate, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _children() -> dict[int, str]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                command = Path(f"/proc/{entry}/cmdline").read_text().replace("\0", " ")
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found[int(entry)] = command
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_cloner_runs_at_the_lowest_priority_and_ends_with_its_git_and_directory(origins, tmp_path, monkeypatch):
    monkeypatch.setenv(scratch.SCRATCH_ENV, str(tmp_path / "scratch"))
    (tmp_path / "scratch").mkdir()
    monkeypatch.setenv("PATH", f"{_slow_git(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    pid_file = tmp_path / "git.pid"
    with clones_ahead(origins) as directory:
        assert directory is not None and clone_ahead.active_directory() == directory
        _wait_for(lambda: pid_file.exists() and pid_file.read_text().strip())
        (cloner,) = [pid for pid, command in _children().items() if "retrace_fix.bulk.clone_ahead" in command]
        git_pid = int(pid_file.read_text())
        assert os.getpriority(os.PRIO_PROCESS, cloner) == 19
        assert os.getpriority(os.PRIO_PROCESS, git_pid) == 19  # inherited: the checkout takes only idle time
    assert clone_ahead.active_directory() is None
    assert not Path(directory).exists() and list((tmp_path / "scratch").iterdir()) == []
    with pytest.raises(ProcessLookupError):
        os.kill(git_pid, 0)  # the cloner ended its git (and reaped it) before it ended itself
    with pytest.raises(ChildProcessError):
        os.waitpid(cloner, os.WNOHANG)  # and was reaped: no process left


def test_nothing_is_started_without_a_local_git_root(tmp_path):
    with clones_ahead([str(tmp_path), "https://example.com/org/repo.git"]) as directory:
        assert directory is None and clone_ahead.active_directory() is None
        assert not any("retrace_fix.bulk.clone_ahead" in command for command in _children().values())


def test_the_command_line_clones_ahead_the_roots_it_is_given(tmp_path, monkeypatch):
    """``_named_roots``: the arguments and the ``--repos`` file's lines (not standard input's), and
    none for ``--shard`` (part of the roots only)."""
    from retrace_fix.cli import _named_roots

    listing = tmp_path / "repos.txt"
    listing.write_text("file:///srv/a\n# a comment\nfile:///srv/b@v2\n")
    assert _named_roots(["--diff", "--scheduler", "local", "--repos", str(listing), "file:///srv/c"]) == [
        "--diff", "--scheduler", "local", "--repos", str(listing), "file:///srv/c", "file:///srv/a", "file:///srv/b@v2"]
    assert _named_roots(["--repos=" + str(listing)])[1:] == ["file:///srv/a", "file:///srv/b@v2"]
    assert _named_roots(["--repos", "-", "file:///srv/c"]) == ["--repos", "-", "file:///srv/c"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it to read would wait for a writer; read by the cloner, typer would find it empty
    assert _named_roots(["--repos", str(fifo)]) == ["--repos", str(fifo)]
    assert _named_roots(["--repos", str(tmp_path / "missing.txt")]) == ["--repos", str(tmp_path / "missing.txt")]
    assert _named_roots(["--shard", "1/2", "file:///srv/c"]) == []
    assert _named_roots(["--shard=1/2", "file:///srv/c"]) == []


@pytest.mark.parametrize("args, cloned, server", [
    (["--diff", "--repos", "repos.txt"], True, False),  # git roots cloned here, by forked workers
    (["--diff", "file:///srv/a"], True, False),
    (["--diff", "--scheduler", "local", "--repos", "repos.txt"], True, True),
    (["--diff", "--scheduler=local", "file:///srv/a"], True, True),
    (["--diff", "--scheduler", "tcp://127.0.0.1:8786", "--repos", "repos.txt"], False, False),  # cloned elsewhere
    (["--diff", "src/", "tests/"], False, False),  # local paths: nothing started, nothing imported
])
def test_the_command_line_starts_the_cloner_where_roots_are_cloned_here(monkeypatch, args, cloned, server):
    from contextlib import contextmanager

    import retrace_fix.bulk.worker_server as worker_server_module
    from retrace_fix import cli

    started = []

    @contextmanager
    def fake(what):
        started.append(what)
        yield None

    monkeypatch.setattr(clone_ahead, "clones_ahead", lambda entries: fake("cloner"))
    monkeypatch.setattr(worker_server_module, "worker_server", lambda fork_here=False: fake("server"))
    with cli._started_first(args, own_process=False):
        pass
    assert started == [what for what, on in (("cloner", cloned), ("server", server)) if on]
