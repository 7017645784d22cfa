"""``retrace-fix bench`` without TensorFlow: arguments, copies, comparisons, verdicts, exit codes.

The programs benchmarked here are plain Python (fast); the runs under real
TensorFlow are in ``test_bench_tf.py``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from retrace_fix.bench.outputs import TextOutput, compare_text, compare_values, load_output, stdout_matches
from retrace_fix.bench.render import render
from retrace_fix.bench.verdict import BenchReport, FixSummary, function_rows, judge
from retrace_fix.bench.runs import RunRecord, map_command
from retrace_fix.commands import bench as bench_command
from retrace_fix.commands.bench import BenchRequest, run_bench
from tests.support.cli_runner import run_cli
from tests.support.replayed_runs import replay_identical_runs

RELAX_SRC = textwrap.dedent(
    """\
    import tensorflow as tf


    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)
    """
)
# Plain Python: prints numbers; never imports the TF module above.
DRIVE_SRC = textwrap.dedent(
    """\
    import json
    values = [i * 0.1 for i in range(5)]
    print("result", sum(values))
    with open("out.json", "w") as handle:
        json.dump({"values": values}, handle)
    """
)
# Its output depends on the source text of relax.py, so the (correct) rename fix changes it.
SOURCE_SENSITIVE_DRIVE = 'print("size", len(open("relax.py").read()))\n'


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def program_runs() -> dict:
    """The programs' runs, kept for the module (tests/support/replayed_runs.py)."""
    return {}


@pytest.fixture(autouse=True)
def replayed_program_runs(monkeypatch, program_runs) -> None:
    """Many tests bench the same program on the same files (``project``): each run (its tree's bytes,
    command, side and number) is made by the first test that makes it and replayed to the others."""
    replay_identical_runs(monkeypatch, bench_command, program_runs)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "relax.py").write_text(RELAX_SRC)
    (root / "drive.py").write_text(DRIVE_SRC)
    (root / ".venv").mkdir()
    (root / ".venv" / "big.bin").write_bytes(b"x" * 10)
    return root


# --------------------------------------------------------------------------- end to end (CLI)


def test_cli_fixes_a_copy_runs_both_and_leaves_the_tree_alone(project: Path):
    before = tree_hash(project)
    result = run_cli("bench", "--runs", "2", "--compare", "out.json", "--compare-stdout", "^result", "--format", "json",
                     "--", sys.executable, "drive.py", cwd=project)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "retrace-fix-bench"
    assert report["fixes"]["by_code"] == {"RTF004": 1}
    assert report["fixes"]["files_changed"] == ["relax.py"]
    assert "+@tf.function(reduce_retracing=True)" in report["fixes"]["diff"]
    assert [r["side"] for r in report["run_details"]] == ["before", "before", "after", "after"]
    assert all(r["ok"] and r["exit_code"] == 0 for r in report["run_details"])
    assert report["outputs"] == {"compared": ["out.json", "stdout /^result/"], "equal": True, "differences": [],
                                 "masked": [], "stable": True}
    assert report["traces"] == {"before": 0, "after": 0}
    assert report["timing"]["wall_s"]["before"]["values"] and report["timing"]["program_s"]["after"]["median"] >= 0
    assert report["status"] == "ok" and report["exit_code"] == 0
    # which of the two notes depends on the timings (a clear speedup is a result): either says no trace
    assert any(note.startswith(("no tf.function traces were recorded", "no tf.function traced in either tree"))
               for note in report["notes"])
    assert tree_hash(project) == before
    assert not (project / "out.json").exists()


def test_cli_exit_1_when_the_fix_changes_outputs(project: Path):
    (project / "drive.py").write_text(SOURCE_SENSITIVE_DRIVE)
    before = tree_hash(project)
    result = run_cli("bench", "--runs", "1", "--compare-stdout", r"size (\d+)", "--", sys.executable, "drive.py", cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAIL: outputs differ" in result.stdout
    assert "113 before, 104 after" in result.stdout
    assert tree_hash(project) == before


def test_cli_text_table_and_markdown(project: Path):
    result = run_cli("bench", "--runs", "1", "--format", "markdown", "--", sys.executable, "drive.py", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "| tf.function | traces before | traces after | calls |" in result.stdout
    assert "| wall time of CMD |" in result.stdout
    assert "✅ **OK: 1 fix in 1 file" in result.stdout
    assert "```diff" in result.stdout


def test_text_report_and_quiet(project: Path):
    code, out, err = run_cli("bench", "--runs", "1", "-q", "--", sys.executable, "drive.py", cwd=project).outcome
    assert code == 0 and err == ""
    assert "time (median, min–max)" in out and "OK: 1 fix in 1 file" in out


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "no command given"),
        (("--",), "no command given"),
        (("--runs", "0", "--", "python", "x.py"), "--runs must be at least 1"),
        (("--rtol", "-1", "--", "python", "x.py"), "--rtol must be"),
        (("--format", "html", "--", "python", "x.py"), "--format must be one of"),
        (("--compare-stdout", "(", "--", "python", "x.py"), "invalid regular expression"),
        (("--compare", "/elsewhere/out.npy", "--", "python", "x.py"), "outside the project"),
        (("--select", "RTF999", "--", "python", "x.py"), "unknown code `RTF999`"),
        (("--traces", "missing.json", "--", "python", "x.py"), "missing.json"),
        (("--timeout", "0", "--", "python", "x.py"), "--timeout must be positive"),
    ],
)
def test_cli_bad_arguments_exit_2(project: Path, args, message):
    before = tree_hash(project)
    code, out, err = run_cli("bench", *args, cwd=project).outcome
    assert code == 2, out + err
    assert message in err
    assert tree_hash(project) == before


def test_cli_compare_that_compares_nothing_is_a_usage_error(project: Path):
    args = ("--runs", "1", "--compare", "never.npy", "--", sys.executable, "drive.py")
    code, _out, err = run_cli("bench", *args, cwd=project).outcome
    assert code == 2
    assert "--compare never.npy: the original run did not write this file" in err
    args = ("--runs", "1", "--compare-stdout", "^nomatch", "--", sys.executable, "drive.py")
    code, _out, err = run_cli("bench", *args, cwd=project).outcome
    assert code == 2
    assert "matched no line of the original's output" in err


def test_cli_nothing_to_fix(tmp_path: Path):
    (tmp_path / "drive.py").write_text("print('hello')\n")
    # --no-record: static fixes only, and there are none: nothing runs
    code, out, err = run_cli("bench", "--no-record", "--", sys.executable, "drive.py", cwd=tmp_path).outcome
    assert code == 0
    assert "nothing to fix with these options" in out and "run 1/" not in err
    # default: the original's first run is recorded (for trace-driven fixes), then nothing to fix
    code, out, err = run_cli("bench", "--", sys.executable, "drive.py", cwd=tmp_path).outcome
    assert code == 0
    assert "nothing to fix with these options" in out and "run 1/3 before ok" in err


def test_cli_missing_program_is_reported_per_run(project: Path):
    code, out, _err = run_cli("bench", "--runs", "1", "--", "no-such-program-retrace-fix", cwd=project).outcome
    assert code == 2  # not a verdict on the fixes: the command does not run
    assert "cannot run no-such-program-retrace-fix" in out
    assert "ERROR: the command fails in both trees" in out and "nothing could be validated" in out


def test_cli_original_failing_with_nothing_to_fix_exits_2(tmp_path: Path):
    code, out, _err = run_cli("bench", "--", sys.executable, "train.py", cwd=tmp_path).outcome
    assert code == 2
    assert "ERROR: the original fails (exit code 2: " in out and "nothing could be validated" in out


# --------------------------------------------------------------------------- in process, custom fixers


def _rewriting_fixer(old: str, new: str, filename: str = "drive.py"):
    def fix(before_root: Path, after_root: Path, project_root: Path, traces=None) -> FixSummary:
        path = after_root / filename
        path.write_text(path.read_text().replace(old, new))
        return FixSummary(files_changed=[filename], applied=Counter({"RTF999": 1}))

    return fix


def test_broken_fixer_changing_a_results_file_exits_1(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    out, err = io.StringIO(), io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, compare=["out.json"], quiet=True)
    code = run_bench(request, fixer=_rewriting_fixer("i * 0.1", "i * 0.2"), out=out, err=err)
    assert code == 1, out.getvalue() + err.getvalue()
    assert "FAIL: outputs differ (out.json['values'][1]: 0.1 before, 0.2 after)" in out.getvalue()


# A line with a timing on it: only the timing varies between runs of the original.
TIMED_DRIVE = textwrap.dedent(
    """\
    import time
    start = time.perf_counter()
    count = 6
    total = sum(range(64)) * 0.5 + 200
    print(f"total {total:.3f} bookkeeping {count} took {time.perf_counter() - start + 1e-4 * (time.time_ns() % 977):.4f}s")
    """
)


@pytest.mark.parametrize(("old", "new", "code", "verdict"), [
    ("count = 6", "count = 1", 1, "FAIL: outputs differ (stdout /^total/: line 1: 6 before, 1 after "
                                  "('total 1208.000 bookkeeping 6 took …s'; … varies run to run))"),
    ("count = 6", "count = 6  # fixed", 0, "outputs match where stable (stdout /^total/: 1 line, 1 varying number "
                                          "masked; rtol 1e-05)"),
])
def test_a_stable_number_on_a_line_with_a_timing_is_still_compared(tmp_path: Path, monkeypatch, old, new, code,
                                                                     verdict):
    (tmp_path / "drive.py").write_text(TIMED_DRIVE)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=3, compare_stdout="^total", quiet=True,
                           output_format="json")
    assert run_bench(request, fixer=_rewriting_fixer(old, new), out=out, err=io.StringIO()) == code
    report = json.loads(out.getvalue())
    assert verdict in report["verdict"]
    assert report["outputs"]["masked"] == ["stdout /^total/: 1 line, 1 varying number masked"]
    assert report["outputs"]["equal"] is False and report["outputs"]["stable"] is True


CLOCK_DRIVE = textwrap.dedent(
    """\
    import time
    count = 6
    print(time.time())
    print(time.perf_counter())
    time.sleep(0.02)
    print(f"total {count}")
    """
)


@pytest.mark.parametrize(("old", "new", "code", "verdict"), [
    ("count = 6", "count = 7", 1, "FAIL: outputs differ (stdout /./: line 3: 6 before, 7 after ('total 6'))"),
    ("count = 6", "count = 6  # fixed", 0, "outputs match where stable (stdout /./: 3 lines, 2 varying numbers "
                                          "masked"),
])
def test_an_absolute_clock_printed_alone_is_masked_not_compared_equal(tmp_path: Path, monkeypatch, old, new, code,
                                                                     verdict):
    """time.time() and perf_counter() move by less than rtol times their value between two runs: masked
    all the same (a number that differs at all between the original's own runs varies)."""
    (tmp_path / "drive.py").write_text(CLOCK_DRIVE)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=2, compare_stdout=".", quiet=True,
                           output_format="json")
    assert run_bench(request, fixer=_rewriting_fixer(old, new), out=out, err=io.StringIO()) == code
    report = json.loads(out.getvalue())
    assert verdict in report["verdict"]
    assert report["outputs"]["masked"] == ["stdout /./: 3 lines, 2 varying numbers masked"]


def test_outputs_that_vary_in_everything_compare_nothing_and_exit_1(tmp_path: Path, monkeypatch):
    (tmp_path / "drive.py").write_text("import time\nprint(f'took {time.perf_counter_ns() % 99991}ns')\n# x\n")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=2, compare_stdout="took", quiet=True)
    assert run_bench(request, fixer=_rewriting_fixer("# x", "# y"), out=out, err=io.StringIO()) == 1
    assert "FAIL: nothing stable left to compare: the outputs named vary between the original's own runs " \
           "(stdout /took/: 1 line, 1 varying number masked)" in out.getvalue()


def test_fixed_version_failing_exits_1(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, quiet=True)
    fixer = _rewriting_fixer("import json", "import json\nraise RuntimeError('broken by the fix')")
    assert run_bench(request, fixer=fixer, out=out, err=io.StringIO()) == 1
    text = out.getvalue()
    assert "FAIL: the fixed version fails (exit code 1) where the original runs" in text
    assert "RuntimeError: broken by the fix" in text


def test_original_failing_and_fixed_running_exits_0(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    (project / "drive.py").write_text("raise RuntimeError('original is broken')\n")
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, quiet=True)
    fixer = _rewriting_fixer("raise RuntimeError('original is broken')", "print('fine')")
    assert run_bench(request, fixer=fixer, out=out, err=io.StringIO()) == 0
    text = out.getvalue()
    # said plainly: how the original fails is the fixes' result, not an error with a traceback
    assert "OK: the original fails (exit code 1: RuntimeError: original is broken); with the fixes it runs" in text
    assert "the original fails (exit code 1: RuntimeError: original is broken); the fixed version runs\n" in text
    assert "Traceback" not in text


def test_original_failing_its_fixed_tree_is_recorded_for_chained_fixes(project: Path, monkeypatch):
    """The original's run recorded nothing: the fixed tree runs once under the recorder and the fixer runs again."""
    monkeypatch.chdir(project)
    (project / "drive.py").write_text("raise RuntimeError('original is broken')\n")
    calls = []

    def fixer(before_root: Path, after_root: Path, project_root: Path, traces=None) -> FixSummary:
        calls.append(traces)
        path = after_root / "drive.py"
        path.write_text("print('fine')\n")
        return FixSummary(files_changed=["drive.py"], applied=Counter({"RTF002": 1}))

    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, quiet=True)
    assert run_bench(request, fixer=fixer, out=out, err=io.StringIO()) == 0
    assert calls == [None]  # no tf.function in the fixed tree either: nothing to fix from
    assert ("note: the original fails, so its first run recorded no traces: the fixed tree ran once more under "
            "the recorder: it traced no tf.function, so no fix from traces") in out.getvalue()


def test_timeout_counts_as_failure(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, quiet=True, timeout=1.5)
    fixer = _rewriting_fixer("import json", "import json, time\ntime.sleep(60)")
    assert run_bench(request, fixer=fixer, out=out, err=io.StringIO()) == 1
    assert "the fixed version fails (timed out)" in out.getvalue()


def test_keep_keeps_the_trees_and_the_fixed_copy_is_fixed(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    out = io.StringIO()
    request = BenchRequest(command=[sys.executable, "drive.py"], runs=1, quiet=True, keep=True, output_format="json")
    assert run_bench(request, out=out, err=io.StringIO()) == 0
    report = json.loads(out.getvalue())
    kept = next(n for n in report["notes"] if n.startswith("trees kept in "))[len("trees kept in "):]
    try:
        before, after = Path(kept) / "before" / "proj", Path(kept) / "after" / "proj"
        assert (before / "relax.py").read_text() == RELAX_SRC
        assert "reduce_retracing=True" in (after / "relax.py").read_text()
        assert not (before / ".venv").exists()  # virtual environments are not copied
    finally:
        import shutil

        shutil.rmtree(kept)


def test_exclude_is_neither_copied_nor_fixed(project: Path, monkeypatch):
    monkeypatch.chdir(project)
    (project / "data").mkdir()
    (project / "data" / "relax_copy.py").write_text(RELAX_SRC)
    out = io.StringIO()
    request = BenchRequest(
        command=[sys.executable, "-c", "import os; print(os.path.exists('data'))"],
        runs=1, quiet=True, exclude=["data/"], output_format="json", compare_stdout="True|False",
    )
    assert run_bench(request, out=out, err=io.StringIO()) == 0
    report = json.loads(out.getvalue())
    assert report["fixes"]["files_changed"] == ["relax.py"]


def test_absolute_paths_into_the_project_are_mapped_to_the_copies(tmp_path: Path):
    root = tmp_path / "p"
    copy = tmp_path / "copy"
    assert map_command(["python", str(root / "a" / "drive.py"), "/usr/bin/x", "rel.py"], root, copy) == [
        "python", str(copy / "a" / "drive.py"), "/usr/bin/x", "rel.py",
    ]


# --------------------------------------------------------------------------- comparisons


def test_compare_text_numbers_with_tolerance():
    assert compare_text("loss 0.1000001\nok", "loss 0.1\nok", 1e-5, 1e-8) == []
    assert compare_text("loss 0.11", "loss 0.1", 1e-5, 1e-8) == ["line 1: 0.11 before, 0.1 after ('loss 0.11')"]
    assert compare_text("a 1", "b 1", 1e-5, 1e-8) == ["line 1: 'a 1' before, 'b 1' after"]
    assert compare_text("x\ny", "x", 1e-5, 1e-8) == ["text: 2 lines before, 1 after"]
    assert compare_text("nan inf", "nan inf", 1e-5, 1e-8) == []


def test_compare_values_nested_json():
    a = {"loss": [1.0, 2.0], "name": "m", "steps": 3}
    assert compare_values(a, {"loss": [1.0, 2.0000001], "name": "m", "steps": 3}, 1e-5, 1e-8) == []
    assert compare_values(a, {"loss": [1.0, 2.5], "name": "m", "steps": 3}, 1e-5, 1e-8) == [
        "'loss'[1]: 2.0 before, 2.5 after"
    ]
    assert compare_values(a, {"loss": [1.0], "name": "m", "steps": 3}, 1e-5, 1e-8) == ["'loss': 2 items before, 1 after"]
    assert compare_values(a, {"name": "m"}, 1e-5, 1e-8)[0].startswith("value: keys")
    assert compare_values(True, 1, 1e-5, 1e-8) == []  # bool/int compare with ==


def test_compare_arrays(tmp_path: Path):
    np = pytest.importorskip("numpy")
    np.save(tmp_path / "a.npy", np.array([1.0, 2.0, np.nan]))
    np.save(tmp_path / "b.npy", np.array([1.0, 2.0 + 1e-9, np.nan]))
    np.save(tmp_path / "c.npy", np.array([1.0, 3.0, np.nan]))
    np.savez(tmp_path / "d.npz", w=np.ones(2), b=np.zeros(3))
    a, b, c = (load_output(tmp_path / f"{n}.npy") for n in "abc")
    assert compare_values(a, b, 1e-5, 1e-8, "out.npy") == []
    (problem,) = compare_values(a, c, 1e-5, 1e-8, "out.npy")
    assert problem.startswith("out.npy: 1 of 3 elements differ (max abs diff 1; first at (1,)")
    assert compare_values(a, np.ones(2), 1e-5, 1e-8, "x") == ["x: shape (3,) before, (2,) after"]
    archive = load_output(tmp_path / "d.npz")
    assert sorted(archive) == ["b", "w"]
    assert compare_values(archive, {"w": np.ones(2), "b": np.zeros(3)}, 1e-5, 1e-8) == []


def test_text_output_files_and_stdout_patterns(tmp_path: Path):
    (tmp_path / "log.txt").write_text("step 1 loss 0.5\n")
    value = load_output(tmp_path / "log.txt")
    assert isinstance(value, TextOutput)
    assert compare_values(value, TextOutput("step 1 loss 0.5000001\n"), 1e-5, 1e-8) == []
    text = "noise 1\nloss: 0.25\nacc: 0.5\nloss: 0.125\n"
    assert stdout_matches(text, re.compile(r"^loss")) == "loss: 0.25\nloss: 0.125"
    assert stdout_matches(text, re.compile(r"^(loss|acc): (\S+)")) == "loss\t0.25\nacc\t0.5\nloss\t0.125"


# --------------------------------------------------------------------------- verdicts


def _record(side: str, index: int, traces: dict, exit_code: int = 0, program: float = 1.0) -> RunRecord:
    return RunRecord(side=side, index=index, exit_code=exit_code, wall_s=program + 3, program_s=program,
                     program_cpu_s=program * 1.5, tracing_s=program / 2, traces=dict(traces),
                     calls={k: 10 for k in traces})


def _report(records: list[RunRecord]) -> BenchReport:
    report = BenchReport(command=["python", "drive.py"], runs=2, rtol=1e-5, atol=1e-8, project="/p",
                         fixes=FixSummary(files_changed=["m.py"], applied=Counter({"RTF003": 1})), records=records)
    report.functions = function_rows(report.side("before"), report.side("after"))
    return report


def test_judge_more_traces_after_is_a_failure():
    key = ("m.py", "step", 4)
    report = _report([_record("before", 0, {key: 2}), _record("after", 0, {key: 3})])
    judge(report)
    assert report.exit_code == 1 and report.verdict == "FAIL: the fixed version traces more (2 → 3)"


def test_a_partials_record_is_a_row_of_its_own():
    """A tf.function of ``functools.partial(step, ...)`` is recorded at ``def step`` with ``wraps``."""
    plain, wrapped = ("m.py", "step", 4), ("m.py", "step", 4, "functools.partial")
    report = _report([_record("before", 0, {plain: 3, wrapped: 6}), _record("after", 0, {plain: 1, wrapped: 6})])
    assert [(row.qualname, row.before, row.after) for row in report.functions] == [
        ("step", [3], [1]), ("step (via functools.partial)", [6], [6])]


def test_judge_ok_reports_traces_speedup_and_noise():
    key, moved = ("m.py", "step", 4), ("m.py", "step", 5)  # the fix moved the function down one line
    report = _report([
        _record("before", 0, {key: 10}, program=2.0), _record("before", 1, {key: 10}, program=2.2),
        _record("after", 0, {moved: 1}, program=1.0), _record("after", 1, {moved: 1}, program=1.1),
    ])
    judge(report)
    assert report.exit_code == 0
    assert report.verdict.startswith(
        "OK: 1 fix in 1 file; traces 10 → 1, 2.00× faster (program time 2.10 s → 1.05 s; CPU time 2.00×), "
        "tracing 1.05 s → 525.0 ms"
    )
    assert [(r.qualname, r.traces_before, r.traces_after) for r in report.functions] == [("step", 10, 1)]
    stream = io.StringIO()
    render(report, "text", stream)
    assert "m.py::step   10             1             10" in stream.getvalue()
    assert "2.00×" in stream.getvalue()
    slow = _report([
        _record("before", 0, {key: 1}, program=1.0), _record("before", 1, {key: 1}, program=1.2),
        _record("after", 0, {key: 1}, program=1.1), _record("after", 1, {key: 1}, program=1.3),
    ])
    judge(slow)
    assert "slower" in slow.verdict and "within run-to-run noise" in slow.verdict and slow.exit_code == 0


def test_a_speedup_without_traces_is_a_result_not_a_warning():
    from retrace_fix.commands.bench import _no_traces_note

    fast = _report([
        _record("before", 0, {}, program=2.0), _record("before", 1, {}, program=2.2),
        _record("after", 0, {}, program=0.1), _record("after", 1, {}, program=0.12),
    ])
    judge(fast)
    assert fast.verdict.startswith("OK: 1 fix in 1 file; no tf.function traced before or after, 19.09× faster")
    assert _no_traces_note(fast).startswith("no tf.function traced in either tree: the speedup comes from code outside")
    same = _report([
        _record("before", 0, {}, program=1.0), _record("before", 1, {}, program=1.2),
        _record("after", 0, {}, program=1.1), _record("after", 1, {}, program=1.0),
    ])
    assert _no_traces_note(same).startswith("no tf.function traces were recorded (does CMD run")


def test_judge_json_is_serialisable():
    key = ("m.py", "step", 4)
    report = _report([_record("before", 0, {key: 3}), _record("after", 0, {key: 1})])
    judge(report)
    stream = io.StringIO()
    render(report, "json", stream)
    data = json.loads(stream.getvalue())
    assert data["functions"] == [{
        "file": "m.py", "qualname": "step", "traces_before": 3, "traces_after": 1,
        "traces_before_runs": [3], "traces_after_runs": [1], "calls_before": 10, "calls_after": 10,
    }]
    assert data["speedup_metric"] == "program_s" and data["speedup"] == 1.0
    assert data["machine"]["cores"] >= 1


# --------------------------------------------------------------------------- benchmarks/run_all.py


def _load_run_all():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "run_all.py"
    spec = importlib.util.spec_from_file_location("run_all", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_benchmark_scenarios_are_complete():
    run_all = _load_run_all()
    scenarios = run_all.scenarios()
    assert len(scenarios) >= 6
    for directory in scenarios:
        expected = json.loads((directory / "expected.json").read_text())
        assert (directory / "drive.py").is_file(), directory.name
        assert {"title", "seed", "traces_after", "fixes", "why"} <= set(expected), directory.name
        assert expected.get("before_fails") or "traces_before" in expected, directory.name
        assert expected["traces_after"] <= expected.get("traces_before", expected["traces_after"])


def test_run_all_checks_results_against_expectations():
    run_all = _load_run_all()
    expected = {"traces_before": 5, "traces_after": 1, "fixes": ["RTF003"]}
    runs = [{"side": "before", "ok": True}, {"side": "after", "ok": True}]
    report = {"run_details": runs, "traces": {"before": 5, "after": 1}, "fixes": {"by_code": {"RTF003": 1}},
              "exit_code": 0, "verdict": "OK"}
    assert run_all.check(report, expected) == []
    report["traces"]["after"] = 2
    report["fixes"]["by_code"] = {}
    assert run_all.check(report, expected) == ["traces after 2, expected 1", "expected fixes not applied: RTF003"]
    failing = {"run_details": [{"side": "before", "ok": False}, {"side": "after", "ok": True}],
               "traces": {"before": None, "after": 3}, "fixes": {"by_code": {"RTF002": 1}}, "exit_code": 0}
    assert run_all.check(failing, {"before_fails": True, "traces_after": 3, "fixes": ["RTF002"]}) == []


def test_the_timing_probe_ends_the_program_before_the_recorders_exit_work(tmp_path: Path):
    """The recorder proves candidate fixes in threading's exit hook (registered by its sitecustomize,
    before the probe): that second is not the program's time."""
    script = textwrap.dedent(
        f"""\
        import sys, threading, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        threading._register_atexit(lambda: time.sleep(0.6))  # the recorder's proofs, registered first
        from retrace_fix.bench import probe
        assert probe.install()
        """
    )
    env = dict(os.environ, RETRACE_FIX_BENCH_DIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    (timing,) = [json.loads(p.read_text()) for p in tmp_path.glob("timing-*.json")]
    assert timing["program_s"] < 0.5  # counting the exit hook would give at least its 0.6 s


def test_only_the_recording_run_proves(tmp_path: Path, monkeypatch):
    from retrace_fix.bench.runs import child_env
    from retrace_fix.traces.prover import ENV_PROOF_SECONDS

    monkeypatch.delenv(ENV_PROOF_SECONDS, raising=False)
    assert child_env(tmp_path, tmp_path, tmp_path)[ENV_PROOF_SECONDS] == "0"
    assert ENV_PROOF_SECONDS not in child_env(tmp_path, tmp_path, tmp_path, prove=True)
    monkeypatch.setenv(ENV_PROOF_SECONDS, "5")  # the user's budget reaches the recording run
    assert child_env(tmp_path, tmp_path, tmp_path, prove=True)[ENV_PROOF_SECONDS] == "5"
