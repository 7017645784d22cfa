"""The robustness and speed scripts under benchmarks/ work on a small tree (no timings asserted).

benchmarks/corpus.py is how issue-level claims ("no crash, every output parses,
untouched files byte-identical, second run empty") are checked on real
repositories; a broken script would silently stop checking them.  Pure rewriter:
no TensorFlow import.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli_runner import run_cli

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
ENVIRONMENT = {name: os.environ.get(name) for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}

RELAXED = """\
import tensorflow as tf


@tf.function(experimental_relax_shapes=True)
def step(x):
    return x * 2
"""

PLAIN = "def add(a, b):\n    return a + b\r\n"  # mixed line endings must survive untouched
BROKEN = "def broken(:\n    pass\n"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "train.py").write_text(RELAXED)
    (root / "pkg" / "util.py").write_bytes(PLAIN.encode())
    (root / "broken.py").write_text(BROKEN)
    (root / "README.md").write_text("not python\n")
    return root


def test_corpus_check_reports_figures_and_no_problem(tree: Path, tmp_path: Path, capsys, monkeypatch):
    corpus = _load("corpus")
    # the first run (--diff of the tree) is the process corpus.py starts; the fix run on the copy
    # and the second run, in this process
    runs = _cli_in_process(corpus, monkeypatch, processes=1)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    out = tmp_path / "figures.json"

    status = corpus.main([str(tree), "--jobs", "1", "--json", str(out)])

    assert status == 0, capsys.readouterr().out
    figures = json.loads(out.read_text())
    totals = figures["totals"]
    assert (totals["trees"], totals["files"], totals["parse_failures"], totals["files_changed"]) == (1, 3, 1, 1)
    assert totals["fixes"] == {"RTF004": 1}
    assert totals["problems"] == 0
    (report,) = figures["trees"]
    assert report["exit_code"] == 2  # the broken file is reported, the rest processed
    assert report["parse_failures"][0].startswith("broken.py:1:")
    assert report["second_run_changed"] == 0
    # the original tree is never written: the fix run happens on a copy
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    assert "TOTAL 1 trees, 3 files" in capsys.readouterr().out
    assert len(runs) == 3 and runs[0][0] == "--diff"


def _ipynb(*sources: str, language: str = "python") -> str:
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in sources]
    metadata = {"kernelspec": {"display_name": language, "language": language, "name": language.lower()}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _cli_in_process(corpus, monkeypatch, processes: int = 0) -> list[list[str]]:
    """The script's runs of ``retrace-fix`` in this process, same arguments and folder, after its first
    ``processes`` runs, which start the process the script starts; gives back the argv of every run."""
    real, runs = corpus.run_cli, []

    def run_here(args: list[str], cwd: Path, pythonpath: Path = corpus.ROOT):
        runs.append(list(args))
        if len(runs) <= processes:
            return real(args, cwd, pythonpath)
        assert pythonpath == corpus.ROOT  # no --baseline checkout: the code under test
        return run_cli(*args, cwd=cwd)

    monkeypatch.setattr(corpus, "run_cli", run_here)
    return runs


def test_corpus_check_counts_notebooks_by_kind(tmp_path: Path, capsys, monkeypatch):
    """Refused: nothing of the notebook read; a cell left out: the others analysed (and compared with
    the script reading); another language: skipped, neither."""
    corpus = _load("corpus")
    _cli_in_process(corpus, monkeypatch)
    root = tmp_path / "nbs"
    root.mkdir()
    (root / "train.ipynb").write_text(_ipynb("import tensorflow as tf", RELAXED.split("\n", 2)[2]))
    (root / "exercise.ipynb").write_text(_ipynb("import tensorflow as tf", "batch_size = ", RELAXED.split("\n", 2)[2]))
    (root / "plain.ipynb").write_text(_ipynb("x = 1"))
    (root / "broken.ipynb").write_text('{"cells": [')
    (root / "r.ipynb").write_text(_ipynb("library(tensorflow)\nf <- tf$function(g)", language="R"))
    out = tmp_path / "figures.json"

    status = corpus.main([str(root), "--jobs", "1", "--json", str(out)])

    assert status == 0, capsys.readouterr().out
    (report,) = json.loads(out.read_text())["trees"]
    notebooks = report["notebooks"]
    assert report["problems"] == [] and report["exit_code"] == 2 and report["second_run_changed"] == 0
    assert (notebooks["files"], notebooks["changed"], notebooks["unchanged_identical"]) == (5, 1, 4)
    assert notebooks["skipped_other_language"] == 1
    assert [e.split(":")[0] for e in notebooks["refused"]] == ["broken.ipynb"]
    assert notebooks["cell_left_out"] == [
        "exercise.ipynb:cell 2:1:14: cannot parse: invalid syntax; the other cells were checked, notebook left unchanged"]
    assert notebooks["other_errors"] == []
    # train's and exercise's RTF004, each equal to its cells read as a script
    assert (notebooks["findings"], notebooks["compared_with_scripts"]) == (2, 3)
    assert "1 refused, 1 with a cell left out" in capsys.readouterr().out


def test_corpus_check_flags_crashes_and_bad_trees(tmp_path: Path, capsys):
    corpus = _load("corpus")
    crashed = subprocess.CompletedProcess([], 1, "", "Traceback (most recent call last):\n  ...\nKeyError: 'x'\n")
    assert corpus.crash_signs(crashed) == ["traceback on stderr: KeyError: 'x'"]
    assert corpus.crash_signs(subprocess.CompletedProcess([], -11, "", "")) == ["exit code -11"]
    assert corpus.crash_signs(subprocess.CompletedProcess([], 2, "", "error: a.py:1:1: cannot parse")) == []
    assert corpus.parses("x = (\n", strict=False).startswith("LibCST:")
    assert corpus.parses("print 'py2'\n", strict=True) is not None
    assert corpus.parses("x = 1\n", strict=True) is None
    payload = {"files": [{"path": "a.py", "changed": False, "findings": [],
                          "error": "a.py: internal error in RTF001: boom"}]}
    assert corpus.summarise(payload)["errors"]["internal"] == ["a.py: internal error in RTF001: boom"]
    assert corpus.main([str(tmp_path / "missing")]) == 2


def _speed(monkeypatch, capsys, *args: str, runs: list[list[str]] | None = None,
           processes: int = 0, bare_processes: int = 0) -> subprocess.CompletedProcess:
    """``python benchmarks/speed.py ARGS`` in this process; the variables it sets for the processes
    it measures are restored afterwards.  What it measures runs as it starts it (its ``MEASURE``
    wrapper around a fresh process), except that the measured ``python -m retrace_fix`` runs after
    the first ``processes`` are run by :func:`_measure_in_process` (their arguments appended to
    ``runs``), and the bare parse (the script's own program) after the first ``bare_processes`` by
    :func:`_measure_bare_in_process`.  One test measures real processes of both kinds
    (:func:`test_speed_script_prints_ratios`); the others check which runs the script makes and
    how it prints them, not ``MEASURE`` again."""
    for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE"):
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])
        else:  # recorded as unset (delenv alone records nothing when the variable is unset)
            monkeypatch.setenv(name, "")
            monkeypatch.delenv(name)
    speed = _load("speed")
    real = speed.measure
    runs = [] if runs is None else runs
    bare_runs: list[list[str]] = []

    def measure(command: list[str]) -> tuple[int, float, int, float]:
        if command[:3] != [sys.executable, "-m", "retrace_fix"]:  # the bare parse: the script's own program
            bare_runs.append(command)
            return real(command) if len(bare_runs) <= bare_processes else _measure_bare_in_process(command)
        runs.append(command[3:])
        return real(command) if len(runs) <= processes else _measure_in_process(command[3:])

    monkeypatch.setattr(speed, "measure", measure)
    code = speed.main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["speed.py", *args], code, out, err)


def _cpu_s() -> float:
    """CPU time (user + system) of this process and of its children waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure_in_process(args: list[str]) -> tuple[int, float, int, float]:
    """What ``speed.measure`` gives back for ``python -m retrace_fix ARGS`` (exit code, wall time,
    peak RSS in KiB, CPU time), the run made in this process: each process the script starts
    pays about a second of imports, and its figures are only printed, never asserted."""
    start, cpu = time.perf_counter(), _cpu_s()
    code = run_cli(*args).returncode
    wall = time.perf_counter() - start
    return code, wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, _cpu_s() - cpu


def _measure_bare_in_process(command: list[str]) -> tuple[int, float, int, float]:
    """What ``speed.measure`` gives back for the bare parse ``python bare_parse.py JOBS LISTING`` (the
    program the script writes), run in this process: the same file, arguments and exit code, without
    the fresh interpreter's imports.  ``runpy`` runs it as ``__main__`` (its pool's workers, forked
    from this process, find ``parse`` there)."""
    import contextlib
    import io
    import runpy

    script, jobs, listing = command[1:]
    assert command[0] == sys.executable and Path(script).name == "bare_parse.py", command
    start, cpu, argv, out = time.perf_counter(), _cpu_s(), sys.argv, io.StringIO()
    sys.argv = [script, jobs, listing]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = argv
    wall = time.perf_counter() - start
    assert out.getvalue().strip().isdigit(), out.getvalue()  # the number of files it could not parse
    return code, wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, _cpu_s() - cpu


def test_speed_script_prints_ratios(tree: Path, tmp_path: Path, monkeypatch, capsys):
    out = tmp_path / "speed.json"
    runs: list[list[str]] = []
    proc = _speed(monkeypatch, capsys, str(tree), "--jobs", "1,2", "--repeat", "1", "--json", str(out), runs=runs,
                  processes=1, bare_processes=1)
    assert proc.returncode == 0, proc.stderr
    assert runs == [["--diff", "--quiet", "--jobs", jobs, str(tree)] for jobs in ("1", "2")]
    figures = json.loads(out.read_text())
    assert (figures["files"], figures["files_past_byte_prefilter"], figures["files_parsed_by_libcst"]) == (3, 1, 1)
    assert figures["lines_given_to_libcst"] == figures["lines_of_parsed_files"] == RELAXED.count("\n")
    assert [row["jobs"] for row in figures["runs"]] == [1, 2]
    # --diff finds the fix; broken.py cannot hold a target, so it is not parsed (no exit 2)
    assert all(row["exit_codes"] == [1] for row in figures["runs"])
    assert all(row["ratio"] > 0 and row["cpu_ratio"] > 0 and row["peak_rss_mib"] > 0 for row in figures["runs"])
    assert "scaling jobs 1 -> 2" in proc.stdout and "target ratio <= 0.25" in proc.stdout


def test_speed_script_measures_each_tree(tree: Path, tmp_path: Path, monkeypatch, capsys):
    other = tmp_path / "other"
    other.mkdir()
    (other / "step.py").write_text(RELAXED)
    out = tmp_path / "speed.json"
    runs: list[list[str]] = []
    proc = _speed(monkeypatch, capsys, str(tree), str(other), "--each", "--jobs", "1", "--repeat", "1",
                  "--target", "0.4", "--json", str(out), runs=runs)
    assert proc.returncode == 0, proc.stderr
    assert [run[4:] for run in runs] == [[str(tree)], [str(other)], [str(tree), str(other)]]
    figures = json.loads(out.read_text())
    assert [(row["tree"], row["files"]) for row in figures["per_tree"]] == [(str(tree), 3), (str(other), 1)]
    assert figures["files"] == 4 and figures["target"] == 0.4
    assert "target ratio <= 0.4" in proc.stdout


def test_speed_script_measures_the_ways_bulk_runs_are_given_roots(tmp_path: Path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    from tests.support.gitrepos import new_repo

    corpus = tmp_path / "corpus"
    new_repo(corpus / "first", {"train.py": RELAXED, "util.py": PLAIN})
    new_repo(corpus / "second", {"step.py": RELAXED})
    out = tmp_path / "bulk.json"
    trees = [str(corpus / "first"), str(corpus / "second")]
    # one worker: a Dask worker per --jobs is started (and imports the engine) for the last row
    runs: list[list[str]] = []
    proc = _speed(monkeypatch, capsys, *trees, "--bulk", "--jobs", "1", "--repeat", "1", "--json", str(out), runs=runs)
    assert proc.returncode == 0, proc.stderr
    assert [run[4:] for run in runs] == [[str(corpus)], trees, trees[:1], trees[1:], ["--repos", runs[4][-1]],
                                         ["--scheduler", "local", "--repos", runs[4][-1]]]
    figures = json.loads(out.read_text())
    assert list(figures["rows"]) == ["bare parse", "one folder", "N paths", "each alone, summed",
                                     "--repos file:// URLs", "--scheduler local"]
    assert figures["folder"] == str(corpus)  # their parent holds nothing else
    rows = figures["rows"]
    assert rows["each alone, summed"]["processes"] == 2 and rows["N paths"]["processes"] == 1
    # every way finds the two fixes (--diff: exit 1); none fails
    assert all(rows[label]["exit_codes"] == [1] for label in rows if label != "bare parse")
    assert all(row["wall_s"] > 0 and row["cpu_s"] > 0 for row in rows.values())
    assert [r["ratio"] for r in figures["ratios"]] == [
        "N paths / bare parse", "N paths / each alone, summed", "--scheduler local / N paths"]
    for label in ("--scheduler local", "N paths / each alone, summed", "CPU"):
        assert label in proc.stdout


def test_speed_script_leaves_out_the_url_rows_unless_every_tree_is_a_clean_checkout(tmp_path: Path, monkeypatch,
                                                                                    capsys):
    """A tree that is not a git checkout would fail to clone, and its root would be missing from
    the URL rows: they are left out, saying why, rather than timed on less work."""
    from tests.support.gitrepos import new_repo

    corpus = tmp_path / "corpus"
    new_repo(corpus / "first", {"train.py": RELAXED})
    (corpus / "copied").mkdir()
    (corpus / "copied" / "step.py").write_text(RELAXED)  # a copy, not a checkout
    new_repo(corpus / "edited", {"step.py": RELAXED})
    (corpus / "edited" / "new.py").write_text(PLAIN)  # untracked: read by a path run, not by a clone
    trees = [str(corpus / name) for name in ("first", "copied", "edited")]
    speed = _load("speed")
    assert speed.checkout_problems(trees) == [f"{trees[1]}: not the top of a git checkout",
                                              f"{trees[2]}: its files differ from its commit (git status)"]
    assert speed.checkout_problems(trees[:1]) == []
    runs: list[list[str]] = []
    proc = _speed(monkeypatch, capsys, *trees, "--bulk", "--jobs", "1", "--repeat", "1", runs=runs)
    assert proc.returncode == 0, proc.stderr
    assert not any("--repos" in run for run in runs) and len(runs) == 5  # one folder, N paths, each of three
    assert "--repos and --scheduler rows: left out" in proc.stdout and "not the top of a git checkout" in proc.stdout
    assert "--scheduler local / N paths" not in proc.stdout


def test_corpus_baseline_must_run_its_own_codemods(tmp_path: Path):
    corpus = _load("corpus")
    checkout = tmp_path / "base"
    (checkout / "retrace_fix").mkdir(parents=True)
    (checkout / "retrace_fix" / "cli.py").write_text("")
    (checkout / "codemods").mkdir()
    assert "retrace_fix/codemods is missing" in corpus.baseline_problem(checkout)
    assert corpus.main([str(tmp_path), "--baseline", str(checkout)]) == 2
    (checkout / "retrace_fix" / "codemods").symlink_to("../codemods")
    assert corpus.baseline_problem(checkout) is None
    assert corpus.baseline_problem(tmp_path) == "not a retrace-fix checkout"


def test_speed_script_leaves_the_environment_as_it_was():
    """Runs after the speed.py tests above: what the script set for its children was undone."""
    assert os.environ.get("PYTHONPATH") == ENVIRONMENT["PYTHONPATH"]
    assert os.environ.get("PYTHONDONTWRITEBYTECODE") == ENVIRONMENT["PYTHONDONTWRITEBYTECODE"]


def test_apply_speed_script_prints_the_ratio():
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "apply_speed.py"), "--lines", "5000", "--hunks", "10", "--repeat", "1",
         "--max-ratio", "1000000"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("10 hunks on a 5,000-line file: matching ")
    assert "matching nowhere" in proc.stdout and "(target: at most 1e+06)" in proc.stdout
