"""Bulk runs as root tasks: Dask (--scheduler), git URL roots, --shard (no TensorFlow).

One corpus of 13 roots for the module: local repositories (one with a file that
does not parse, one missing), a directory outside git, and bare repositories
given as ``file://`` URLs at a tag, a commit, a branch and their default branch
(one with a syntax error, one that does not exist).  One in-process
``LocalCluster`` (threads) serves the module; the tests that need real worker
processes start their own small one.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from retrace_fix.bulk.git_sources import GitSource, parse_git_root
from retrace_fix.bulk.shard import Shard
from tests.support.gitrepos import commit_all, git, new_repo, state
from tests.support.cli_runner import run_cli
from tests.support.dask_workers import forked_workers
from tests.bulk.test_run import CLEAN, LATIN1, PREDICT, RELAX, tree, write

if importlib.util.find_spec("distributed") is None:  # pragma: no cover - the [dask] extra is not installed
    pytest.skip("could not import 'distributed'", allow_module_level=True)

if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git not installed", allow_module_level=True)

BROKEN = "def f(:\n    return tf.function\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """13 roots; ``repos.txt`` lists them, ``mirror.txt`` the same with local checkouts for the URLs."""
    base = tmp_path_factory.mktemp("corpus")
    alpha = new_repo(base / "work" / "alpha", {
        "pkg/model.py": PREDICT, "pkg/pool.py": RELAX, "pkg/clean.py": CLEAN, "nonl.py": RELAX.rstrip("\n"),
        ".gitignore": "build/\n", "build/generated.py": RELAX,
    })
    write(alpha / "crlf.py", RELAX, newline="\r\n")
    write(alpha / "legacy.py", LATIN1, encoding="latin-1")
    commit_all(alpha, "more")
    new_repo(base / "work" / "beta", {"train.py": RELAX + "\n\n" + PREDICT.split("\n", 1)[1], "broken.py": BROKEN})
    new_repo(base / "work" / "gamma", {"ok.py": CLEAN})
    write(base / "plain" / "delta" / "relax.py", RELAX)  # not in git
    new_repo(base / "other" / "alpha", {"relax.py": RELAX})

    sources = base / "sources"
    echo = new_repo(sources / "echo", {"a.py": RELAX})
    git(echo, "tag", "v1")
    write(echo / "b.py", PREDICT)
    commit_all(echo, "b")
    foxtrot = new_repo(sources / "foxtrot", {"f.py": RELAX})
    first = git(foxtrot, "rev-parse", "HEAD")
    write(foxtrot / "f.py", RELAX.replace("mean_pool", "pool_mean"))
    commit_all(foxtrot, "rename")
    new_repo(sources / "golf", {"g.py": PREDICT, "sub/h.py": RELAX})
    hotel = new_repo(sources / "hotel", {"main.py": CLEAN})
    git(hotel, "checkout", "-q", "-b", "feature")
    write(hotel / "feature.py", RELAX)
    commit_all(hotel, "feature")
    git(hotel, "checkout", "-q", "main")
    new_repo(sources / "india", {"broken.py": BROKEN, "ok.py": RELAX})
    new_repo(sources / "juliet", {"clean.py": CLEAN})
    bare = base / "bare"
    for source in sorted(sources.iterdir()):
        git(base, "clone", "-q", "--bare", str(source), str(bare / f"{source.name}.git"))

    urls = {
        "echo": (f"{(bare / 'echo.git').as_uri()}@v1", "v1"),
        "foxtrot": (f"{(bare / 'foxtrot.git').as_uri()}@{first}", first),
        "golf": ((bare / "golf.git").as_uri(), None),
        "hotel": (f"{(bare / 'hotel.git').as_uri()}@feature", "feature"),
        "india": ((bare / "india.git").as_uri(), None),
        "juliet": ((bare / "juliet.git").as_uri(), None),
    }
    missing_url = (bare / "nope.git").as_uri()
    for name, (_, rev) in urls.items():  # local checkouts of the same commits, for the comparison
        git(base, "clone", "-q", str(bare / f"{name}.git"), str(base / "mirror" / name))
        if rev:
            git(base / "mirror" / name, "checkout", "-q", rev)
    local = ["work/alpha", "work/beta", "work/gamma", "plain/delta", "other/alpha", "work/missing"]
    (base / "repos.txt").write_text("\n".join([*local, *(u for u, _ in urls.values()), missing_url]) + "\n")
    (base / "mirror.txt").write_text("\n".join([*local, *(f"mirror/{n}" for n in urls)]) + "\n")
    return base


@pytest.fixture(scope="module")
def scheduler():
    """An in-process LocalCluster (threads): its address, for --scheduler (Dask is imported here,
    not when the module is collected: every worker of the test run collects every module)."""
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster:
        yield cluster.scheduler_address


@pytest.fixture(scope="module")
def worker_processes():
    """Dask's worker processes forked from one server that imported Dask and the engine once
    (``tests/support/dask_workers.py``), not a fresh interpreter each.  The
    server is started once for the module's tests that use this (``worker_server``: a run that finds
    one running forks its workers from it and leaves it running), after the test of the server that
    ends with its run, which starts its own."""
    from retrace_fix.bulk.cluster import worker_server

    with forked_workers(), worker_server():
        yield


@pytest.fixture
def in_corpus(corpus, monkeypatch):
    monkeypatch.chdir(corpus)
    return corpus


def patches(directory: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree(directory).items() if k.endswith(".patch")}


ROOT_NAMES = ["alpha", "beta", "gamma", "delta", "alpha-2", "missing", "echo", "foxtrot", "golf", "hotel", "india",
              "juliet", "nope"]


@pytest.fixture(scope="module")
def whole_runs(corpus, scheduler):
    """The whole corpus once on the cluster (``cluster/``) and once locally with ``--jobs 1`` (``local/``):
    their outcomes; several tests compare against their patches."""
    args = ["--repos", "repos.txt", "--format", "json"]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.chdir(corpus)
        on_cluster = run_cli("--patch-dir", "cluster", "--summary", "cluster/SUMMARY.md", "--scheduler", scheduler,
                             *args).outcome
        local = run_cli("--patch-dir", "local", "--summary", "local/SUMMARY.md", "--jobs", "1", *args).outcome
    return on_cluster, local


def test_cluster_run_gives_the_patches_and_summary_of_a_local_jobs_1_run(in_corpus, whole_runs):
    (code, out, err), (code1, out1, _) = whole_runs
    assert code == 2, err  # the failing clone, the missing root and two files that do not parse
    assert code1 == 2
    assert patches(in_corpus / "cluster") == patches(in_corpus / "local")
    assert sorted(patches(in_corpus / "cluster")) == sorted(
        f"{n}.patch" for n in ["alpha", "alpha-2", "beta", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
    )
    summary = (in_corpus / "cluster" / "SUMMARY.md").read_text()
    assert summary == (in_corpus / "local" / "SUMMARY.md").read_text().replace("`local/", "`cluster/")
    assert out == out1.replace('"local/', '"cluster/')
    rows = {row["name"]: row for row in json.loads(out)["roots"]}
    assert list(rows) == ROOT_NAMES
    assert rows["alpha"]["fixes"] == {"RTF002": 1, "RTF004": 4} and rows["alpha"]["files_scanned"] == 6
    assert rows["echo"]["files_scanned"] == 1 and rows["echo"]["fixes"] == {"RTF004": 1}  # the tag, not the tip
    assert rows["golf"]["fixes"] == {"RTF002": 1, "RTF004": 1}
    assert rows["hotel"]["files_scanned"] == 2 and rows["hotel"]["fixes"] == {"RTF004": 1}  # the branch
    assert rows["juliet"]["files_changed"] == 0 and rows["juliet"]["patch"] is None
    assert rows["india"]["errors"] == 1 and rows["india"]["error_messages"][0].startswith("india/broken.py:1:7: cannot parse")
    assert rows["beta"]["errors"] == 1 and rows["beta"]["error_messages"][0].startswith("work/beta/broken.py:1:7: cannot")
    assert rows["missing"]["error_messages"] == ["work/missing: no such file or directory"]
    nope = rows["nope"]["error_messages"]
    assert len(nope) == 1 and nope[0].startswith(f"{(in_corpus / 'bare' / 'nope.git').as_uri()}: cannot clone: fatal:")
    assert nope[0].endswith("(tried twice)")
    foxtrot = (in_corpus / "cluster" / "foxtrot.patch").read_text()
    assert foxtrot.startswith("--- a/f.py\n+++ b/f.py\n") and "def mean_pool" in foxtrot  # the commit asked for


def test_git_url_roots_give_the_patches_of_local_checkouts(in_corpus, whole_runs):
    assert whole_runs[0][0] == 2  # the URL roots on the cluster, in cluster/
    code, _, _ = run_cli("--patch-dir", "checkouts", "--jobs", "1", "--repos", "mirror.txt").outcome
    assert code == 2
    assert patches(in_corpus / "cluster") == patches(in_corpus / "checkouts")
    code, _, _ = run_cli("--patch-dir", "threads", "--jobs", "3", "--repos", "repos.txt").outcome  # no cluster
    assert patches(in_corpus / "threads") == patches(in_corpus / "checkouts")


def test_diff_names_cloned_files_after_their_root(in_corpus, scheduler):
    code, out, err = run_cli("--diff", "--scheduler", scheduler, "--repos", "repos.txt").outcome
    assert code == 2
    headers = [line for line in out.splitlines() if line.startswith("+++ ")]
    assert "+++ b/echo/a.py" in headers and "+++ b/golf/sub/h.py" in headers and "+++ b/work/alpha/pkg/pool.py" in headers
    assert headers == sorted(headers)
    assert "error: india/broken.py:1:7: cannot parse" in err
    assert not any("retrace-fix-" in line for line in out.splitlines() + err.splitlines())  # no scratch paths


def test_clones_are_removed_after_the_run(in_corpus, tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("RETRACE_FIX_SCRATCH", str(scratch))  # where the clones go
    bare = in_corpus / "bare"
    code, out, _ = run_cli("--diff", "-j", "2", f"{(bare / 'echo.git').as_uri()}@v1", (bare / "golf.git").as_uri(), (bare / "nope.git").as_uri()).outcome
    assert code == 2 and "+++ b/golf/g.py" in out and "+++ b/echo/a.py" in out
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize("where", [["--scheduler", "local"], []])
def test_the_command_s_own_process_gives_the_patches_of_one_process(in_corpus, whole_runs, tmp_path, where):
    """As users run it (``python -m retrace_fix``; the URL roots cloned ahead while the run starts;
    with ``--scheduler local`` the workers' server forked from the command, without it the
    workers forked from the command): the patches and summary of the whole corpus in one
    process; the scratch place left empty."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "RETRACE_FIX_SCRATCH": str(scratch)}
    out_dir = tmp_path / "own"
    done = subprocess.run(
        [sys.executable, "-m", "retrace_fix", "--patch-dir", str(out_dir), "--summary", str(out_dir / "SUMMARY.md"),
         *where, "--jobs", "2", "--repos", "repos.txt", "--format", "json"],
        cwd=in_corpus, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert patches(out_dir) == patches(in_corpus / "local")
    local_summary = (in_corpus / "local" / "SUMMARY.md").read_text()
    assert (out_dir / "SUMMARY.md").read_text() == local_summary.replace("`local/", f"`{out_dir}/")
    assert list(scratch.iterdir()) == []  # every clone, made ahead or not, removed


def test_fix_mode_on_the_cluster_writes_local_roots(corpus, scheduler, tmp_path, monkeypatch):
    shutil.copytree(corpus / "work", tmp_path / "work")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("--scheduler", scheduler, "work/alpha", "work/gamma").outcome
    assert code == 0, err
    assert "reduce_retracing=True" in (tmp_path / "work/alpha/pkg/pool.py").read_text()
    assert (tmp_path / "work/gamma/ok.py").read_text() == CLEAN
    code, out, err = run_cli("--scheduler", scheduler, "--diff", "work/alpha").outcome
    assert code == 0 and out == ""  # idempotent


def test_branch_on_the_cluster_commits_in_each_changed_repository(corpus, scheduler, tmp_path, monkeypatch):
    shutil.copytree(corpus / "work", tmp_path / "work", symlinks=True)
    shutil.copytree(corpus / "work", tmp_path / "written", symlinks=True)
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "work/alpha/pkg/clean.py", CLEAN + "# uncommitted work\n")
    repos = {name: tmp_path / "work" / name for name in ("alpha", "beta", "gamma")}
    before, files = {n: state(r) for n, r in repos.items()}, tree(tmp_path / "work")
    code, out, err = run_cli("--branch", "retrace-fix/fixes", "--scheduler", scheduler, "--format", "json", "work/alpha", "work/beta", "work/gamma").outcome
    assert code == 2  # work/beta/broken.py does not parse; beta's other file is in its branch all the same
    assert tree(tmp_path / "work") == files and {n: state(r) for n, r in repos.items()} == before
    rows = {row["name"]: row for row in json.loads(out)["roots"]}
    for name in ("alpha", "beta"):
        commit = git(repos[name], "rev-parse", "refs/heads/retrace-fix/fixes")
        assert rows[name]["branch"] == commit and git(repos[name], "rev-parse", f"{commit}^") == before[name]["head"]
        assert f"branch retrace-fix/fixes created in work/{name} at {commit[:12]}: " in err
    assert rows["gamma"]["branch"] is None and git(repos["gamma"], "branch", "--list") == "* main"
    changed = git(repos["alpha"], "diff", "--name-only", "main", "retrace-fix/fixes").split()
    assert changed == ["crlf.py", "legacy.py", "nonl.py", "pkg/model.py", "pkg/pool.py"]
    # the branch holds exactly what write mode writes
    monkeypatch.chdir(tmp_path / "written")
    run_cli("alpha", "beta").outcome
    for name in ("alpha", "beta"):
        for path in git(repos[name], "diff", "--name-only", "main", "retrace-fix/fixes").split():
            shown = subprocess.run(["git", "show", f"retrace-fix/fixes:{path}"], cwd=repos[name], capture_output=True,
                                   check=True).stdout
            assert shown == (tmp_path / "written" / name / path).read_bytes(), path


def test_shards_split_the_roots_and_together_are_the_whole_run(in_corpus, scheduler, whole_runs):
    assert whole_runs[1][0] == 2  # the whole run, locally, in local/
    seen: list[str] = []
    union: dict[str, bytes] = {}
    for k in (1, 2, 3):
        code, out, _ = run_cli("--patch-dir", f"shard{k}", "--format", "json", "--shard", f"{k}/3", "--repos", "repos.txt").outcome
        names = [row["name"] for row in json.loads(out)["roots"]]
        assert names == ROOT_NAMES[k - 1::3]  # round-robin over the list, names of the whole run
        seen += names
        for name, data in patches(in_corpus / f"shard{k}").items():
            assert name not in union
            union[name] = data
    assert sorted(seen) == sorted(ROOT_NAMES)
    assert union == patches(in_corpus / "local")
    # the same slice on the cluster, and again: deterministic
    code, out, _ = run_cli("--patch-dir", "cshard", "--format", "json", "--shard", "2/3", "--scheduler", scheduler, "--repos", "repos.txt").outcome
    assert [row["name"] for row in json.loads(out)["roots"]] == ROOT_NAMES[1::3]
    assert patches(in_corpus / "cshard") == patches(in_corpus / "shard2")
    # a shard of local roots only runs as a plain local run (no tasks), with the same names
    local_roots = ["work/alpha", "other/alpha", "work/beta"]
    code, out, _ = run_cli("--patch-dir", "lshard", "--format", "json", "--shard", "2/2", *local_roots).outcome
    assert [row["name"] for row in json.loads(out)["roots"]] == ["alpha-2"]
    assert sorted(patches(in_corpus / "lshard")) == ["alpha-2.patch"]
    code, out, _ = run_cli("--patch-dir", "lshard", "--format", "json", "--shard", "1/2", *local_roots).outcome
    assert [row["name"] for row in json.loads(out)["roots"]] == ["alpha", "beta"]


def test_nested_roots_in_different_shards_count_each_file_once(in_corpus):
    roots = ["work/alpha", "work/alpha/pkg"]
    _, whole, _ = run_cli("--check", "--format", "json", *roots).outcome
    rows = {row["name"]: row for row in json.loads(whole)["roots"]}
    assert rows["alpha"]["files_scanned"] == 3 and rows["pkg"]["files_scanned"] == 3
    for k, name in ((1, "alpha"), (2, "pkg")):
        _, out, _ = run_cli("--check", "--format", "json", "--shard", f"{k}/2", *roots).outcome
        assert json.loads(out)["roots"] == [rows[name]]


# --------------------------------------------------------------------------- failures and retries


CALLS: dict[str, int] = {}  # tries per root name: the task function may be a copy (Dask pickles it)


class Attempts:
    """A task function that fails for some roots: always (``doomed``) or on the first try (``flaky``)."""

    def __init__(self, doomed: str, flaky: str, exception: type[BaseException]) -> None:
        self.doomed, self.flaky, self.exception = doomed, flaky, exception
        CALLS.clear()
        self.calls = CALLS

    def __call__(self, task, settings):
        from retrace_fix.bulk.root_task import process_root

        CALLS[task.name] = CALLS.get(task.name, 0) + 1
        if task.name == self.doomed or (task.name == self.flaky and CALLS[task.name] == 1):
            raise self.exception("lost")
        return process_root(task, settings)


def _tasks(corpus: Path):
    from retrace_fix.bulk.roots import group_roots
    from retrace_fix.bulk.root_task import TaskSettings
    from retrace_fix.engine.options import RunOptions
    from retrace_fix.bulk.scheduler import make_tasks

    entries = group_roots((corpus / "repos.txt").read_text().split())
    settings = TaskSettings(options=RunOptions(), excludes=(), clone_excludes=(), cwd=str(corpus))
    return make_tasks(entries, entries), settings


def test_a_lost_worker_fails_only_its_root_after_one_retry(in_corpus, scheduler):
    from distributed import Client
    from distributed.comm.core import CommClosedError

    from retrace_fix.bulk.cluster import run_on_dask

    tasks, settings = _tasks(in_corpus)
    attempts = Attempts(doomed="golf", flaky="echo", exception=CommClosedError)
    done: list[str] = []
    with Client(scheduler) as client:
        outcomes = run_on_dask(client, tasks, settings, lambda o: done.append(tasks[o.index].name), attempts)
    assert sorted(done) == sorted(ROOT_NAMES)  # progress: once per root
    assert attempts.calls["golf"] == 2 and attempts.calls["echo"] == 2
    assert attempts.calls["hotel"] == 1 and attempts.calls["alpha"] == 1
    golf = outcomes[ROOT_NAMES.index("golf")]
    assert golf.files == [] and [p.error for p in golf.problems] == [
        f"{tasks[ROOT_NAMES.index('golf')].label}: the cluster lost the task (CommClosedError) (tried twice)"
    ]
    echo = outcomes[ROOT_NAMES.index("echo")]
    assert [f.path for f in echo.files] == ["echo/a.py"] and echo.problems == []
    assert outcomes[ROOT_NAMES.index("alpha")].files  # every other root is processed


def test_run_here_retries_once_too(in_corpus):
    from retrace_fix.bulk.scheduler import run_here

    tasks, settings = _tasks(in_corpus)
    tasks = tasks[:3]  # alpha, beta, gamma: local roots, nothing to clone
    assert [t.name for t in tasks] == ["alpha", "beta", "gamma"]
    attempts = Attempts(doomed="alpha", flaky="beta", exception=RuntimeError)
    outcomes = run_here(tasks, settings, jobs=1, task_function=attempts)
    assert attempts.calls["alpha"] == 2 and attempts.calls["beta"] == 2 and attempts.calls["gamma"] == 1
    assert [p.error for p in outcomes[0].problems] == ["work/alpha: RuntimeError: lost (tried twice)"]
    assert outcomes[1].files


def test_local_workers_are_forked_from_a_server_that_ends_with_the_run():
    """``--scheduler local``'s workers are forked from one server that imported the engine (not
    fresh interpreters importing it each); the server (and the resource tracker it started) is ended
    and reaped with the cluster."""
    from multiprocessing import forkserver, resource_tracker

    from retrace_fix.bulk.cluster import dask_client

    tracker = resource_tracker._resource_tracker  # the server starts multiprocessing's resource tracker
    tracker_ran_before = tracker._pid is not None
    with dask_client("local", workers=1) as client:
        server = forkserver._forkserver._forkserver_pid
        tracker_pid = tracker._pid
        ((parent, imported),) = client.run(_parent_and_engine).values()
        (quiet,) = client.run(_quiet_worker).values()
        stealing = client.run_on_scheduler(lambda dask_scheduler: "stealing" in dask_scheduler.extensions)
    assert quiet == {"tick": 1000, "monitor": 5000} and not stealing  # cluster.QUIET_CLUSTER reached them
    assert server is not None and parent == server != os.getpid()
    assert imported  # before any task: the server imported it
    assert forkserver._forkserver._forkserver_pid is None
    with pytest.raises(ChildProcessError):
        os.waitpid(server, os.WNOHANG)  # reaped already: no process left behind
    if tracker_ran_before:  # someone else's: left alone
        assert tracker._pid == tracker_pid
    else:  # stopped and reaped with the server
        assert tracker._pid is None
        with pytest.raises(ChildProcessError):
            os.waitpid(tracker_pid, os.WNOHANG)


@pytest.mark.parametrize("args, started", [
    (["--check", "--scheduler", "local", "x"], True),
    (["--check", "--scheduler=local", "x"], True),
    (["--check", "--scheduler", "tcp://127.0.0.1:1", "x"], False),
    (["--check", "x"], False),
    (["--verify", "x", "--", "python", "run.py", "--scheduler", "local"], False),  # the program's own argument
])
def test_the_command_line_starts_the_local_workers_server_before_the_command(monkeypatch, args, started):
    """``--scheduler local``: the workers' server is started before typer parses the command (its
    imports overlap the coordinator's) and stopped when the command ends, even by an error; it is
    forked from the command's process only where that process is the command's own (not when
    ``main`` is called with arguments, as here: the caller's process may run threads)."""
    from contextlib import contextmanager

    import retrace_fix.bulk.worker_server as worker_server_module
    import retrace_fix.commands.fix as fix_command

    events: list[str] = []

    @contextmanager
    def server(fork_here=False):
        events.append(f"started{' by forking' if fork_here else ''}")
        try:
            yield True
        finally:
            events.append("stopped")

    def command(request):
        events.append("command")
        raise RuntimeError("the command fails")

    monkeypatch.setattr(worker_server_module, "worker_server", server)
    monkeypatch.setattr(fix_command, "run_fix_command", command)
    from retrace_fix.cli import main

    with pytest.raises((RuntimeError, SystemExit)):
        main(args)
    assert events == (["started", "command", "stopped"] if started else ["command"])


#: a command's own process (``python -c``): the workers' server forked from it, or, with a thread
#: running (argv[1] == "thread"), spawned as a fresh interpreter; what a worker sees of its server
FORKED_SERVER = r"""
import json, os, signal, sys, threading
from multiprocessing import forkserver
from retrace_fix.bulk.cluster import dask_client
from retrace_fix.bulk.worker_server import worker_server

def probe():
    from retrace_fix import fastvisit
    server = os.getppid()
    with open(f"/proc/{server}/cmdline", "rb") as f:
        command = [part.decode() for part in f.read().split(b"\0") if part]
    ignores = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    return server, command, "retrace_fix.engine.run" in sys.modules and bool(fastvisit._PLANS), ignores

if sys.argv[1] == "thread":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
with worker_server(fork_here=True):
    server = forkserver._forkserver._forkserver_pid
    if sys.argv[1] == "die":
        print(server, flush=True)
        os.kill(os.getpid(), 9)
    with dask_client("local", workers=1) as client:
        ((parent, command, engine, ignores),) = client.run(probe).values()
try:
    os.waitpid(server, os.WNOHANG)
    reaped = False
except ChildProcessError:
    reaped = True
print(json.dumps({"server": server, "parent": parent, "command": command, "engine": engine,
                  "ignores_ctrl_c": ignores, "own_command": [sys.executable, "-c"], "reaped": reaped}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the server is forked on Linux only")
@pytest.mark.parametrize("threads", ["none", "thread"])
def test_the_command_s_own_process_forks_the_workers_server_from_itself(threads):
    """``worker_server(fork_here=True)``: in a process running no other thread the server is a fork
    of it (its command line is the process's own, not ``multiprocessing.forkserver``'s), with the
    engine imported and its caches built before the worker is forked from it; with a thread
    running, a fresh interpreter as before.  Either way it is reaped with the cluster.  The workers
    of a forked server ignore Ctrl-C (the command closes the cluster)."""
    done = subprocess.run([sys.executable, "-c", FORKED_SERVER, threads], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["parent"] == seen["server"] and seen["engine"] and seen["reaped"]
    spawned = any("multiprocessing.forkserver" in part for part in seen["command"])
    assert spawned == (threads == "thread")
    if not spawned:
        assert seen["command"][:2] == seen["own_command"] and FORKED_SERVER.strip() in seen["command"][2]
    # Ctrl-C reaches every process of the run; the workers of a forked server leave it to the command
    assert seen["ignores_ctrl_c"] == (not spawned)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the server is forked on Linux only")
def test_a_forked_workers_server_ends_when_the_command_s_process_is_killed():
    """The forked server holds no copy of the pipe whose end tells it the last client is gone: the
    command's process killed (``kill -9``), it ends by itself, as a spawned one does."""
    done = subprocess.run([sys.executable, "-c", FORKED_SERVER, "die"], capture_output=True, text=True, timeout=120)
    assert done.returncode == -9
    server = int(done.stdout.split()[0])
    deadline = time.monotonic() + 30
    while Path(f"/proc/{server}").exists() and "Z" not in Path(f"/proc/{server}/stat").read_text().rsplit(")", 1)[1][:3]:
        assert time.monotonic() < deadline, "the forked server outlived its command"
        time.sleep(0.05)


def test_the_resource_tracker_is_waited_for_a_bounded_time(monkeypatch):
    """A tracker held open by a process that does not end (a worker a half-started cluster went on
    starting): its pipe is closed, the wait gives up after ``TRACKER_WAIT`` and the lock is free
    again -- ``ResourceTracker._stop`` waited for ever there, holding the lock.  Multiprocessing
    children started during the run are ended first; the caller's own are spared."""
    import threading

    from retrace_fix.bulk import worker_server as worker_server_module

    class Tracker:  # what _stop_tracker reads of multiprocessing's ResourceTracker
        def __init__(self, pid, fd):
            self._lock, self._pid, self._fd = threading.RLock(), pid, fd

    monkeypatch.setattr(worker_server_module, "TRACKER_WAIT", 0.3)
    held_open = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    read_end, write_end = os.pipe()
    tracker = Tracker(held_open.pid, write_end)
    spawn = multiprocessing.get_context("spawn")
    callers, runs = spawn.Process(target=time.sleep, args=(60,)), spawn.Process(target=time.sleep, args=(60,))
    callers.start()
    runs.start()
    try:
        started = time.monotonic()
        worker_server_module._stop_tracker(tracker, spare={callers.pid})
        assert time.monotonic() - started < 3
        assert tracker._fd is None and tracker._pid is None
        assert os.read(read_end, 1) == b""  # its end of the pipe was closed: a real tracker ends at EOF
        assert tracker._lock.acquire(blocking=False)  # released
        runs.join(5)
        assert runs.exitcode == -9 and callers.is_alive()  # the run's children ended, the caller's spared
    finally:
        for process in (callers, runs):
            process.kill()
            process.join()
        held_open.kill()
        held_open.wait()
        os.close(read_end)


#: Ctrl-C (a SIGINT to itself) once the LocalCluster's workers run, before the cluster is handed back
INTERRUPTED_START = r"""
import os, signal, sys
import distributed.deploy.spec as spec
from retrace_fix.bulk.cluster import dask_client
from retrace_fix.bulk.worker_server import worker_server

original = spec.SpecCluster._correct_state_internal

async def started_then_interrupted(self):
    result = await original(self)
    os.kill(os.getpid(), signal.SIGINT)
    return result

spec.SpecCluster._correct_state_internal = started_then_interrupted
try:
    with worker_server(fork_here=True):
        with dask_client("local", workers=2):
            print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def _session_processes(session: int) -> list[str]:
    listed = subprocess.run(["ps", "-o", "stat=,pid=,args=", "-s", str(session)], capture_output=True, text=True)
    return [line for line in listed.stdout.splitlines() if line.strip() and not line.strip().startswith("Z")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process table with ps")
def test_ctrl_c_while_the_local_cluster_starts_ends_everything_without_hanging():
    """Ctrl-C once the workers run but before the cluster is handed back: Dask does not close such a
    cluster, and its workers held multiprocessing's resource tracker open, whose stop at the end of
    the run then waited for ever (the run hung after "interrupted").  Now the run ends and leaves no
    process behind."""
    process = subprocess.Popen([sys.executable, "-c", INTERRUPTED_START], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        pytest.fail("the run hung after Ctrl-C")
    assert out.strip() == "interrupted", err
    deadline = time.monotonic() + 10
    while _session_processes(process.pid):
        assert time.monotonic() < deadline, _session_processes(process.pid)
        time.sleep(0.05)


def _parent_and_engine():  # runs in a worker process
    from retrace_fix import fastvisit
    from retrace_fix.codemods import REGISTRY
    from retrace_fix.codemods._base import _FAST_DISPATCH

    # the engine imported and its caches built, in the server, before the fork
    warm = all(cls in _FAST_DISPATCH for cls in REGISTRY) and bool(fastvisit._PLANS)
    return os.getppid(), "retrace_fix.engine.run" in sys.modules and warm


def _quiet_worker(dask_worker):  # runs in a worker process: how often its event loop wakes for Dask's own checks
    callbacks = dask_worker.periodic_callbacks
    return {name: callbacks[name].callback_time for name in ("tick", "monitor") if name in callbacks}


def _die_on_golf(task, settings):  # runs in a worker process
    from retrace_fix.bulk.root_task import process_root

    if task.name == "golf":
        os._exit(1)
    return process_root(task, settings)


def test_a_worker_process_that_dies_fails_only_its_roots(in_corpus, worker_processes):
    import cloudpickle

    from retrace_fix.bulk.cluster import dask_client, run_on_dask

    tasks, settings = _tasks(in_corpus)
    tasks = [t for t in tasks if t.name in ("golf", "echo", "gamma")]
    tasks = [type(t)(i, t.label, t.name, t.paths, t.skip, t.source) for i, t in enumerate(tasks)]
    module = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(module)  # the worker processes cannot import this test module
    try:
        with dask_client("local", workers=1) as client:  # what --scheduler local starts (worker processes)
            outcomes = run_on_dask(client, tasks, settings, task_function=_die_on_golf)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    by_name = {t.name: (t, o) for t, o in zip(tasks, outcomes)}
    golf_task, golf = by_name["golf"]
    assert [p.error for p in golf.problems] == [f"{golf_task.label}: the worker running it died (tried twice)"]
    assert [f.path for f in by_name["echo"][1].files] == ["echo/a.py"]
    assert [f.path for f in by_name["gamma"][1].files] == ["work/gamma/ok.py"]


def _comparable(outcomes):
    return [([(f.path, f.changed, f.fixed, [x.code for x in f.findings], f.error) for f in o.files],
             [p.error for p in o.problems], o.commit) for o in outcomes]


def test_roots_run_here_in_forked_processes_give_what_one_process_gives(in_corpus, monkeypatch, tmp_path):
    """Without a cluster, ``--jobs 2`` runs the roots in processes forked from this one (the files of
    two roots side by side): the outcomes are those of one task after another here, and the workers
    remove their clones before they end."""
    from retrace_fix.bulk import forked_roots
    from retrace_fix.bulk.scheduler import run_here

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("RETRACE_FIX_SCRATCH", str(scratch))
    tasks, settings = _tasks(in_corpus)
    forked = []
    real_run_forked = forked_roots.run_forked
    monkeypatch.setattr(forked_roots, "run_forked", lambda *a, **k: forked.append(1) or real_run_forked(*a, **k))
    done = []
    outcomes = run_here(tasks, settings, jobs=2, on_done=lambda o: done.append(o.index))
    assert forked and sorted(done) == list(range(len(tasks)))
    assert _comparable(outcomes) == _comparable(run_here(tasks, settings, jobs=1))
    assert [f.path for f in outcomes[[t.name for t in tasks].index("echo")].files] == ["echo/a.py"]
    assert list(scratch.iterdir()) == []


def _die_on_golf_after_cloning(task, settings):  # runs in a forked worker process
    from retrace_fix.bulk.root_task import _clone_somewhere, process_root

    if task.name == "golf":
        _clone_somewhere(task.source, task.name)
        os._exit(1)
    return process_root(task, settings)


def test_a_forked_process_that_dies_fails_only_its_root(in_corpus, monkeypatch, tmp_path):
    """A root whose process dies (every time, its clone made) is reported alone; the roots that were
    running or waiting beside it when the pool broke are run again and give their outcomes; the
    dead processes' clones are removed by the run."""
    from retrace_fix.bulk import scratch
    from retrace_fix.bulk.scheduler import run_here

    memory = tmp_path / "mem"  # a stand-in memory file system with room, for the workers' clones
    memory.mkdir()
    monkeypatch.delenv(scratch.SCRATCH_ENV, raising=False)
    monkeypatch.setattr(scratch, "MEMORY_SCRATCH", str(memory))
    monkeypatch.setattr(scratch, "MEMORY_RESERVE", 0)
    tasks, settings = _tasks(in_corpus)
    tasks = [t for t in tasks if t.name in ("golf", "echo", "gamma", "alpha")]
    tasks = [type(t)(i, t.label, t.name, t.paths, t.skip, t.source) for i, t in enumerate(tasks)]
    outcomes = run_here(tasks, settings, jobs=2, task_function=_die_on_golf_after_cloning)
    by_name = {t.name: (t, o) for t, o in zip(tasks, outcomes)}
    golf_task, golf = by_name["golf"]
    assert [p.error for p in golf.problems] == [f"{golf_task.label}: the process running it died (tried twice)"]
    assert golf.files == []
    assert list(memory.iterdir()) == []  # golf's two clones (its process died after each) removed
    others = [t for t in tasks if t.name != "golf"]
    assert _comparable([by_name[t.name][1] for t in others]) == _comparable(run_here(others, settings, jobs=1))


def _slow_after_cloning(task, settings):  # runs in a forked worker process: a clone, then a slow git
    import subprocess

    from retrace_fix.bulk.root_task import _clone_somewhere
    from retrace_fix.bulk.scratch import discard_scratch

    scratch, _, _ = _clone_somewhere(task.source, task.name)
    try:  # run as run_git runs git (subprocess.run), with its process id written down
        subprocess.run(["sh", "-c", f"echo $$ > slow-{task.name}.pid; exec sleep 30"], cwd=settings.cwd)
    finally:
        discard_scratch(scratch)
    raise AssertionError("the root was not stopped")


def test_ctrl_c_stops_forked_roots_and_their_git_and_removes_their_clones(in_corpus, monkeypatch, tmp_path,
                                                                          ctrl_c_delivered):
    """Ctrl-C during a run without a cluster: the workers stop the roots they run as an exception
    would (their git processes ended, not left to write into swept clones), and end; no clone stays."""
    import multiprocessing
    import signal
    import threading
    import time

    from retrace_fix.bulk import scratch
    from retrace_fix.bulk.scheduler import run_here

    memory = tmp_path / "mem"
    memory.mkdir()
    monkeypatch.delenv(scratch.SCRATCH_ENV, raising=False)
    monkeypatch.setattr(scratch, "MEMORY_SCRATCH", str(memory))
    monkeypatch.setattr(scratch, "MEMORY_RESERVE", 0)
    tasks, settings = _tasks(in_corpus)
    tasks = [t for t in tasks if t.name in ("golf", "echo")]
    settings = type(settings)(options=settings.options, excludes=(), clone_excludes=(), cwd=str(tmp_path))
    pid_files = [tmp_path / "slow-golf.pid", tmp_path / "slow-echo.pid"]

    def interrupt_when_both_wait():
        deadline = time.monotonic() + 60
        while not all(f.exists() and f.read_text().strip() for f in pid_files) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_when_both_wait, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_here(tasks, settings, jobs=2, task_function=_slow_after_cloning)
    for pid_file in pid_files:
        pid = int(pid_file.read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the worker ended its child (and reaped it) before it ended itself
    assert multiprocessing.active_children() == [] and list(memory.iterdir()) == []


def test_scheduler_local_end_to_end(in_corpus, worker_processes):
    code, _, err = run_cli("--patch-dir", "proc", "--scheduler", "local", "--jobs", "2", "work/alpha", "work/gamma", f"{(in_corpus / 'bare' / 'echo.git').as_uri()}@v1").outcome
    assert code == 0, err
    code, _, _ = run_cli("--patch-dir", "proc1", "--jobs", "1", "work/alpha", "work/gamma", "mirror/echo").outcome
    assert patches(in_corpus / "proc") == patches(in_corpus / "proc1") and len(patches(in_corpus / "proc")) == 2


def test_an_interrupted_task_run_writes_nothing(in_corpus, monkeypatch):
    from retrace_fix.bulk import scheduler

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scheduler, "run_here", interrupted)
    code, _, _ = run_cli("--patch-dir", "stopped", "--summary", "stopped/S.md", "--repos", "repos.txt").outcome
    assert code == 130
    assert not (in_corpus / "stopped").exists()


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "args, message",
    [
        (["--shard", "0/2", "."], "--shard 0/2: K must be between 1 and N"),
        (["--shard", "3/2", "."], "--shard 3/2: K must be between 1 and N"),
        (["--shard", "two", "."], "--shard two: expected K/N, e.g. 1/4"),
        (["--branch", "bad..name", "."], "--branch bad..name: not a valid git branch name"),
        (["--branch", "fixes", "--diff", "."], "--branch and --diff cannot be combined (--branch commits the fixes)"),
        (["--repos", "repos.txt"], "is cloned for this run only: fix it with --patch-dir DIR (or look with --diff, --check)"),
        (["--branch", "x", "--patch-dir", "p", "--repos", "repos.txt"], "--branch needs local checkouts"),
        (["-i", "--scheduler", "local", "."], "--interactive needs local files"),
        # a malformed git URL is that root's error, the others still run: tests/attack/test_inputs.py
    ],
)
def test_bad_input_is_one_line_and_exit_2(in_corpus, args, message):
    code, out, err = run_cli(*args).outcome
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("retrace-fix: error: ") and message in err


def test_scheduler_without_dask_names_the_extra(in_corpus, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, out, err = run_cli("--diff", "--scheduler", "local", "work/gamma").outcome
    assert code == 2 and out == ""
    assert err == "retrace-fix: error: --scheduler needs Dask's distributed package (pip install distributed, or retrace-fix's [dask] extra)\n"


def test_unreachable_scheduler_is_one_line(in_corpus, monkeypatch):
    from retrace_fix.bulk import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "0.2s")  # port 9 refuses: no wait needed
    code, _, err = run_cli("--diff", "--scheduler", "tcp://127.0.0.1:9", "work/gamma").outcome
    assert code == 2 and err.startswith("retrace-fix: error: --scheduler tcp://127.0.0.1:9: cannot connect:")
    assert err.count("\n") == 1


def test_the_core_runs_git_url_roots_without_dask(in_corpus):
    code = (
        "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None\n"
        "from retrace_fix.cli import main\n"
        f"main(['--diff', '-j', '1', {(in_corpus / 'bare' / 'echo.git').as_uri() + '@v1'!r}, 'work/gamma'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=in_corpus)
    assert done.returncode == 1, done.stderr
    assert "+@tf.function(reduce_retracing=True)" in done.stdout and "+++ b/echo/a.py" in done.stdout


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "entry, source, name",
    [
        ("https://github.com/org/repo.git", GitSource("https://github.com/org/repo.git"), "repo"),
        ("https://github.com/org/repo@v1.2", GitSource("https://github.com/org/repo", "v1.2"), "repo"),
        ("git@github.com:org/repo.git", GitSource("git@github.com:org/repo.git"), "repo"),
        ("git@github.com:org/repo.git@release/1.0", GitSource("git@github.com:org/repo.git", "release/1.0"), "repo"),
        ("ssh://git@host:2222/x/y.git@main", GitSource("ssh://git@host:2222/x/y.git", "main"), "y"),
        ("file:///srv/bare/alpha.git@0123abc", GitSource("file:///srv/bare/alpha.git", "0123abc"), "alpha"),
        ("repos/alpha", None, None),
        ("/abs/path@v1", None, None),
        ("name@v1", None, None),
    ],
)
def test_git_root_parsing(entry, source, name):
    assert parse_git_root(entry) == source
    if source is not None:
        assert source.repo_name == name and source.spec == entry


def test_repos_file_keeps_urls_and_resolves_paths(tmp_path):
    from retrace_fix.bulk.run import read_repos_file

    listing = tmp_path / "lists" / "repos.txt"
    write(listing, "../a\nhttps://h/x.git@v1  # pinned\ngit@h:o/y.git\n")
    assert read_repos_file(str(listing)) == [str(tmp_path / "a"), "https://h/x.git@v1", "git@h:o/y.git"]


def test_shard_slices_round_robin():
    assert Shard.parse(" 2 / 3 ").select(list("abcdefg")) == ["b", "e"]
    assert Shard.parse("1/1").select(list("abc")) == ["a", "b", "c"]
    assert Shard.parse("4/4").select(list("abc")) == []
