"""``retrace-fix --verify`` without TensorFlow: the search, the judge, and the command on a stand-in program.

The program imports a stand-in ``tensorflow`` package of its own (``tf.function``
returns the function, ``tf.keras.Sequential`` has ``predict`` and ``__call__``):
the codemods recognise the names, and each run of the program takes a fraction
of a second.  Its three ``predict`` calls inside a tf.function give three
RTF002 candidates: a Keras model's (the direct call prints the same: verified),
and two receivers the rewriter cannot see into, whose direct calls print other
numbers (rejected: output) and raise (rejected: exit).  The real-TensorFlow
end-to-end run is ``tests/verify/test_verify_tf.py``.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from retrace_fix.bench.runs import RunRecord
from retrace_fix.cli import main, split_verify_command
from retrace_fix.verify.judge import Comparison, Reference, Verdict, judge
from retrace_fix.verify import session
from retrace_fix.verify.search import search
from tests.support.replayed_runs import replay_identical_runs

# --------------------------------------------------------------------------- the search


def passes_without(*bad: int):
    """A test whose run passes unless one of ``bad`` is applied; records the sets it ran."""
    seen: list[tuple[list[int], list[int]]] = []

    def test(kept: list[int], trial: list[int], proof: Verdict | None) -> Verdict:
        seen.append((list(kept), list(trial)))
        broken = [u for u in kept + trial if u in bad]
        return Verdict(False, "output", f"{broken[0]} breaks it") if broken else Verdict(True, detail="ok")

    return test, seen


def test_search_keeps_everything_in_one_run_when_all_pass():
    test, seen = passes_without()
    found = search([1, 2, 3, 4], test, budget=10)
    assert found.accepted == [1, 2, 3, 4] and found.rejected == [] and found.runs == 1
    assert seen == [([], [1, 2, 3, 4])]


def test_search_bisects_out_each_failing_unit_on_top_of_what_was_kept():
    test, seen = passes_without(2, 7)
    found = search(list(range(1, 9)), test, budget=20)
    assert found.accepted == [1, 3, 4, 5, 6, 8]
    assert [(unit, verdict.detail) for unit, verdict in found.rejected] == [(2, "2 breaks it"), (7, "7 breaks it")]
    assert found.untested == [] and found.runs == len(seen) == 11
    assert seen[0] == ([], [1, 2, 3, 4, 5, 6, 7, 8])
    assert seen[-1] == ([1, 3, 4, 5, 6], [8])  # the last run proves the final set as a whole
    assert found.proof is not None and found.proof.passed


def test_search_stops_at_its_budget_and_says_what_it_could_not_test():
    test, seen = passes_without(1)
    found = search([1, 2, 3, 4], test, budget=3)
    assert found.runs == 3
    assert [unit for unit, _verdict in found.rejected] == [1] and found.accepted == []
    assert found.untested == [2, 3, 4]


# --------------------------------------------------------------------------- the judge


def record(stdout: str = "result 1.0\n", exit_code: int = 0, traces: dict | None = None, stderr: str = "") -> RunRecord:
    run = RunRecord(side="trial", index=0, exit_code=exit_code, stderr_tail=stderr)
    run.outputs["stdout"] = stdout
    run.traces = {(("prog.py", name, line)): count for (name, line), count in (traces or {}).items()}
    return run


def reference(original: RunRecord, again: RunRecord | None = None, **comparison) -> Reference:
    return Reference(original, Comparison(**comparison), rerun=(lambda: again) if again is not None else None)


def test_judge_passes_a_run_that_exits_prints_the_same_and_traces_less():
    original = record(traces={("f", 3): 4, ("g", 9): 1})
    verdict = judge(record("result 1.000001\n", traces={("f", 4): 1, ("g", 10): 1}), reference(original), None, True)
    assert verdict.passed, verdict.detail
    assert verdict.detail == "exit 0 as the original, stdout: 1 line equal, traces 5 → 2"


@pytest.mark.parametrize(
    ("trial", "failure", "detail"),
    [
        (record(exit_code=1, stderr="Traceback ...\nTypeError: __call__() got an unexpected keyword argument"),
         "exit", "the program fails with it (exit code 1: TypeError: __call__() got an unexpected keyword argument)"),
        (record("result 1.5\n", traces={("f", 3): 1}), "output", "stdout line 1: 1.0 before, 1.5 after ('result 1.0')"),
        (record(traces={("f", 3): 4, ("g", 5): 1}), "traces", "traces 5 → 5 (no fewer)"),
        (record(traces={("f", 3): 2, ("g", 5): 3}), "traces", "`prog.py::g` traces more: 1 → 3"),
    ],
)
def test_judge_rejects_with_the_reason(trial, failure, detail):
    original = record(traces={("f", 3): 4, ("g", 5): 1})
    verdict = judge(trial, reference(original, again=original), None, True)
    assert (verdict.passed, verdict.failure, verdict.detail) == (False, failure, detail)


def test_judge_asks_no_fewer_traces_of_fixes_that_do_not_aim_at_them_only_no_more():
    original = record(traces={("f", 3): 2})
    assert judge(record(traces={("f", 3): 2}), reference(original), None, False).passed
    assert not judge(record(traces={("f", 3): 3}), reference(original), None, False).passed


def test_judge_masks_only_the_tokens_that_vary_between_two_runs_of_the_original():
    original = record("took 0.31 s\nresult 1.0\n", traces={("f", 3): 3})
    again = record("took 0.52 s\nresult 1.0\n", traces={("f", 3): 3})
    ref = reference(original, again=again)
    verdict = judge(record("took 0.12 s\nresult 1.0\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed, verdict.detail
    assert verdict.detail == "exit 0 as the original, stdout: 2 lines, 1 varying number masked, traces 3 → 1"
    assert ref.notes == ["the original's outputs vary between two of its own runs (stdout: 1 varying number masked "
                         "on 1 line, line 1: 'took … s'): only what varies is masked (…), the rest is compared (seed "
                         "the program, or use --compare-stdout REGEX)"]
    assert ref.scope() == "stdout (1 varying number masked)"
    verdict = judge(record("took 0.12 s\nresult 2.0\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.failure == "output" and verdict.detail.startswith("stdout line 2:")
    verdict = judge(record("took 0.12 ms\nresult 1.0\n", traces={("f", 3): 1}), ref, None, True)
    assert (verdict.failure, verdict.detail) == (
        "output", "stdout line 1: 'took … s' before (… varies run to run), 'took 0.12 ms' after")


def test_judge_rejects_a_changed_stable_number_on_a_line_that_holds_a_timing():
    """The issue's case: the count of traces a list keeps sits on the line with the timing."""
    original = record("total 216.000 bookkeeping 6 took 0.0994s\n", traces={("f", 3): 6})
    again = record("total 216.000 bookkeeping 6 took 0.1021s\n", traces={("f", 3): 6})
    ref = reference(original, again=again)
    verdict = judge(record("total 216.000 bookkeeping 1 took 0.0412s\n", traces={("f", 3): 1}), ref, None, True)
    assert (verdict.passed, verdict.failure) == (False, "output")
    assert verdict.detail == ("stdout line 1: 6 before, 1 after ('total 216.000 bookkeeping 6 took …s'; "
                              "… varies run to run)")
    verdict = judge(record("total 216.000 bookkeeping 6 took 0.0412s\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed and verdict.detail == "exit 0 as the original, stdout: 1 line, 1 varying number masked, traces 6 → 1"


def test_judge_masks_an_absolute_clock_that_moves_by_less_than_the_tolerance():
    """time.time() (~1.8e9 s) and perf_counter() (seconds since boot) move by less than rtol times their value
    between two runs: within the tolerance they would pass for stable numbers ("3 lines equal")."""
    original = record("1795852800.123456\n73512.4185\nresult 3\n", traces={("f", 3): 4})
    again = record("1795852801.398712\n73513.6602\nresult 3\n", traces={("f", 3): 4})
    ref = reference(original, again=again)
    verdict = judge(record("1795852804.000931\n73516.2013\nresult 3\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed, verdict.detail
    assert verdict.detail == "exit 0 as the original, stdout: 3 lines, 2 varying numbers masked, traces 4 → 1"
    assert ref.notes[0].startswith("the original's outputs vary between two of its own runs (stdout: 2 varying "
                                   "numbers masked on 2 lines, line 1: '…'")


def test_judge_still_rejects_a_changed_stable_number_next_to_a_timestamp():
    original = record("at 1795852800.123456 result 216.0\n", traces={("f", 3): 4})
    again = record("at 1795852801.398712 result 216.0\n", traces={("f", 3): 4})
    ref = reference(original, again=again)
    verdict = judge(record("at 1795852804.000931 result 216.5\n", traces={("f", 3): 1}), ref, None, True)
    assert (verdict.passed, verdict.failure) == (False, "output")
    assert verdict.detail == "stdout line 1: 216.0 before, 216.5 after ('at … result 216.0'; … varies run to run)"
    verdict = judge(record("at 1795852804.000931 result 216.0\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed and "stdout: 1 line, 1 varying number masked" in verdict.detail


def test_judge_verifies_nothing_when_the_program_prints_only_a_clock():
    original = record("1795852800.123456\n", traces={("f", 3): 4})
    again = record("1795852801.398712\n", traces={("f", 3): 4})
    verdict = judge(record("1795852804.000931\n", traces={("f", 3): 1}), reference(original, again=again), None, True)
    assert (verdict.passed, verdict.failure) == (False, "unverifiable")


def test_judge_float_printing_noise_a_float_printed_identically_stays_compared():
    # printed identically by both runs of the original: stable, compared within the tolerance
    original = record("loss 0.30000000000000004 step 10\n", traces={("f", 3): 4})
    ref = reference(original, again=record("loss 0.30000000000000004 step 10\n", traces={("f", 3): 4}))
    verdict = judge(record("loss 0.3 step 10\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed and "stdout: 1 line equal" in verdict.detail
    assert judge(record("loss 0.31 step 10\n", traces={("f", 3): 1}), ref, None, True).failure == "output"
    # a float whose last digit differs between the original's own runs is not stable: masked
    ref = reference(original, again=record("loss 0.30000000000000009 step 10\n", traces={("f", 3): 4}))
    verdict = judge(record("loss 0.31 step 10\n", traces={("f", 3): 1}), ref, None, True)
    assert verdict.passed and "stdout: 1 line, 1 varying number masked" in verdict.detail
    assert judge(record("loss 0.3 step 11\n", traces={("f", 3): 1}), ref, None, True).failure == "output"


def test_judge_masks_addresses_and_ids_but_compares_the_rest_of_the_line():
    original = record("<Model at 0x7f01a2> run-4f2a done 3\n", traces={("f", 3): 2})
    again = record("<Model at 0x7f9c10> run-9be1 done 3\n", traces={("f", 3): 2})
    ref = reference(original, again=again)
    assert judge(record("<Model at 0x7f0000> run-0000 done 3\n", traces={("f", 3): 1}), ref, None, True).passed
    assert ref.describe().startswith("stdout: 1 line, 1 varying address and ")
    assert judge(record("<Model at 0x7f0000> run-0000 done 4\n", traces={("f", 3): 1}), ref, None, True).failure == "output"


def test_judge_verifies_nothing_when_nothing_stable_is_left_to_compare():
    original = record("took 0.31 s\n", traces={("f", 3): 3})
    again = record("took 0.52 s\n", traces={("f", 3): 3})
    ref = reference(original, again=again)
    verdict = judge(record("took 0.12 s\n", traces={("f", 3): 1}), ref, None, True)
    assert (verdict.passed, verdict.failure) == (False, "unverifiable")
    assert verdict.detail.startswith("nothing stable left to compare: the original's stdout varies between two of "
                                     "its own runs in every value it prints")
    assert "--compare-stdout REGEX or --compare PATH" in verdict.detail
    # naming the lines that matter is the user's word: what is left of them is compared
    named = reference(original, again=again, pattern=re.compile("took"))
    verdict = judge(record("took 0.12 s\n", traces={("f", 3): 1}), named, None, True)
    assert verdict.passed and "stdout lines matching /took/: 1 line, 1 varying number masked" in verdict.detail


def test_judge_stdout_whose_length_varies_is_not_compared_and_says_so():
    original = record("a\nb\n", traces={("f", 3): 3})
    again = record("a\n", traces={("f", 3): 3})
    ref = reference(original, again=again)
    assert judge(record("x\n", traces={("f", 3): 1}), ref, None, True).failure == "unverifiable"
    assert ref.scope() == "stdout (not compared: its number of lines varies run to run)"


def test_judge_a_failing_original_is_proven_by_a_run_that_works():
    original = record("", exit_code=1, stderr="AttributeError: 'SymbolicTensor' object has no attribute 'numpy'")
    verdict = judge(record("anything\n", traces={("f", 3): 6}), reference(original), None, False)
    assert verdict.passed
    assert verdict.detail == ("the original fails (exit code 1: AttributeError: 'SymbolicTensor' object has no "
                              "attribute 'numpy'); with it the program runs (exit 0, 6 traces)")


def test_judge_compares_only_the_lines_the_pattern_selects():
    original = record("noise 1\nloss 0.5\n", traces={("f", 3): 2})
    ref = reference(original, pattern=re.compile(r"^loss"))
    assert judge(record("noise 2\nloss 0.5\n", traces={("f", 3): 1}), ref, None, True).passed
    assert judge(record("noise 1\nloss 0.7\n", traces={("f", 3): 1}), ref, None, True).failure == "output"


# --------------------------------------------------------------------------- the command line


def test_the_command_is_split_off_at_the_double_dash_only_with_verify():
    assert split_verify_command(["fix", "--verify", ".", "--", "python", "-c", "--"]) == (
        ["fix", "--verify", "."], ["python", "-c", "--"])
    assert split_verify_command(["fix", "--", "--verify"]) == (["fix", "--", "--verify"], None)
    assert split_verify_command(["fix", "--diff", "."]) == (["fix", "--diff", "."], None)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--verify", "."], "--verify needs the command to run after `--`"),
        (["--compare", "out.npy", "."], "--compare only works with --verify"),
        (["--rounds", "2", "."], "--rounds only works with --verify"),
        (["--verify", "--rounds", "0", ".", "--", "python", "main.py"], "--rounds must be between 1 and 10"),
        (["--verify", "--shard", "1/2", ".", "--", "python", "main.py"], "--verify and --shard cannot be combined"),
        (["--verify", "--compare-stdout", "(", ".", "--", "python", "main.py"], "--compare-stdout: invalid regular"),
    ],
)
def test_bad_verify_arguments_are_one_line_and_exit_2(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("retrace-fix: error: ") and message in err and err.count("\n") == 1


# --------------------------------------------------------------------------- a stand-in program

STAND_IN_TF = '''\
"""A stand-in for TensorFlow: the names the codemods recognise, nothing else."""


def function(func=None, **kwargs):
    return func if func is not None else (lambda f: f)


class _Sequential:
    def __init__(self, layers=()):
        self.scale = 2.0

    def predict(self, x, verbose=1):
        return [v * self.scale for v in x]

    def __call__(self, x, training=None):
        return [v * self.scale for v in x]


class keras:
    Sequential = _Sequential
'''

HELPERS = '''\
class Tripler:
    def predict(self, x):
        return [v * 2 for v in x]

    def __call__(self, x, training=None):
        return [v * 3 for v in x]


class Echo:
    def predict(self, x):
        return list(x)

    def __call__(self, x):
        return list(x)


tripler = Tripler()
echo = Echo()
'''

PROG = '''\
import tensorflow as tf

from helpers import echo, tripler

model = tf.keras.Sequential([])


@tf.function
def infer(x):
    a = model.predict(x, verbose=0)
    b = tripler.predict(x)
    c = echo.predict(x)
    return a, b, c
'''

MAIN = '''\
from prog import infer

print("infer", infer([1.0, 2.0]))
'''

def added_lines(diff: str) -> list[str]:
    return [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


VERIFIED = PROG.replace("model.predict(x, verbose=0)", "model(x, training=False)")


@pytest.fixture(scope="module")
def program_runs() -> dict:
    """The stand-in program's runs, kept for the module: the tests of the output modes below verify the
    same project and make the same seven runs; the first makes them, the others get their records
    (tests/support/replayed_runs.py: a run on other files, or another command, is made)."""
    return {}


@pytest.fixture
def project(tmp_path: Path, monkeypatch, program_runs) -> Path:
    replay_identical_runs(monkeypatch, session, program_runs)
    root = tmp_path / "proj"
    (root / "tensorflow").mkdir(parents=True)
    (root / "tensorflow" / "__init__.py").write_text(STAND_IN_TF)
    (root / "helpers.py").write_text(HELPERS)
    (root / "prog.py").write_text(PROG)
    (root / "main.py").write_text(MAIN)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def run_cli(args: list[str], capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def verify_args(*options: str) -> list[str]:
    import sys

    return ["--verify", "--select", "RTF002", *options, "prog.py", "--", sys.executable, "main.py"]


def test_write_mode_writes_only_the_verified_fix_and_says_why_the_others_were_dropped(project, capsys):
    code, out, err = run_cli(verify_args(), capsys)
    assert code == 0, err
    assert (project / "prog.py").read_text() == VERIFIED
    assert "verified           prog.py:10  RTF002  1      exit 0 as the original, stdout: 1 line equal, traces 0 → 0" in err
    assert re.search(r"rejected \[output\] +prog\.py:11 +RTF002 +1 +stdout line 1: ", err)
    assert re.search(r"rejected \[exit\] +prog\.py:12 +RTF002 +1 +the program fails with it \(exit code 1: "
                     r"TypeError: .*unexpected keyword argument 'training'\)", err)
    assert "verified 1 of 3 candidate fixes in 1 round (7 runs of" in err
    # what is left to do by hand, with what the run showed
    assert "prog.py:11:9: RTF002 [diagnostic] `predict` inside a tf.function: if `tripler` is a Keras model" in out
    assert "(rejected in round 1: stdout line 1:" in out


def test_diff_and_json_show_the_verified_fix_and_every_verdict(project, capsys):
    code, out, err = run_cli(verify_args("--diff", "--format", "json", "-q"), capsys)
    assert code == 1, err
    assert (project / "prog.py").read_text() == PROG  # --diff writes nothing
    payload = json.loads(out)
    assert list(payload) == ["version", "mode", "files", "summary", "verify"]
    (entry,) = payload["files"]
    assert added_lines(entry["diff"]) == ["+    a = model(x, training=False)"]
    assert [(f["line"], f["applied"], f["verification"]["status"], f["verification"]["failure"])
            for f in entry["findings"]] == [(10, True, "verified", ""), (11, False, "rejected", "output"),
                                            (12, False, "rejected", "exit")]
    verify = payload["verify"]
    assert list(verify) == ["format", "version", "command", "project", "compared", "rtol", "atol", "runs", "max_runs",
                            "original", "fixed", "rounds", "fixes", "functions", "timing", "notes", "verified",
                            "candidates", "verdict"]  # docs/verify.md: a version only grows keys
    assert list(entry["findings"][0]["verification"]) == ["status", "round", "proof", "failure"]
    assert (verify["format"], verify["version"], verify["verified"], verify["candidates"]) == ("retrace-fix-verify", 1, 1, 3)
    assert verify["runs"] == 7 and verify["original"]["ok"] and verify["fixed"]["ok"]
    assert verify["rounds"] == [
        {"round": 1, "traces_from": "none (static fixes only)", "candidates": 3, "verified": 1, "rejected": 2,
         "untested": 0, "skipped": 0, "runs": 5},  # + the original, + the original again (outputs differed)
        {"round": 2, "traces_from": "none (no tf.function traced)", "candidates": 0, "verified": 0, "rejected": 0,
         "untested": 0, "skipped": 2, "runs": 0},  # nothing new: the refuted fixes are not tried again
    ]
    assert [(f["line"], f["status"]) for f in verify["fixes"]] == [(10, "verified"), (11, "rejected"), (12, "rejected")]
    assert err == ""  # -q, JSON: nothing on stderr


def test_interactive_offers_only_verified_hunks_labelled_with_their_proof(project, capsys, monkeypatch):
    code, out, err = run_cli(verify_args("-i", "-q"), capsys, stdin="y\n", monkeypatch=monkeypatch)
    assert code == 0, err
    assert out.count("Apply this hunk") == 1
    assert "    verified (round 1): exit 0 as the original, stdout: 1 line equal, traces 0 → 0" in out
    assert (project / "prog.py").read_text() == VERIFIED


def test_patch_dir_holds_only_verified_fixes(project, tmp_path, capsys):
    patches = tmp_path / "patches"
    code, out, err = run_cli(verify_args("--patch-dir", str(patches), "-q"), capsys)
    assert code == 0, err
    (patch,) = sorted(patches.iterdir())
    text = patch.read_text()
    assert text.startswith("--- a/prog.py\n+++ b/prog.py\n")
    assert added_lines(text) == ["+    a = model(x, training=False)"]
    assert (project / "prog.py").read_text() == PROG


def test_branch_commit_message_carries_the_proof_table(project, capsys):
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=project, check=True)
    code, out, err = run_cli(verify_args("--branch", "retrace-fix/verified", "-q"), capsys)
    assert code == 0, err
    message = subprocess.run(["git", "log", "-1", "--format=%B", "retrace-fix/verified"], cwd=project,
                             capture_output=True, text=True, check=True).stdout
    assert message.startswith("retrace-fix: 1 fix for tf.function retracing (RTF002)")
    assert "Verified by `retrace-fix --verify`:" in message
    assert re.search(r"prog\.py:10 +RTF002 +1 +exit 0 as the original, stdout: 1 line equal, traces 0 → 0", message)
    assert "rejected" not in message
    assert (project / "prog.py").read_text() == PROG  # --branch leaves the files alone


def test_a_failing_original_and_a_fix_that_makes_it_run(project, capsys):
    (project / "tensorflow" / "__init__.py").write_text(STAND_IN_TF.replace(
        "    def predict(self, x, verbose=1):\n        return",
        "    def predict(self, x, verbose=1):\n        raise AttributeError(\"'SymbolicTensor' object has no attribute 'numpy'\")\n        return"))
    (project / "prog.py").write_text(PROG.replace("    b = tripler.predict(x)\n    c = echo.predict(x)\n", "")
                                     .replace("return a, b, c", "return a"))
    code, out, err = run_cli(verify_args("-q"), capsys)
    assert code == 0, err
    assert "model(x, training=False)" in (project / "prog.py").read_text()
    assert ("the original fails (exit code 1: AttributeError: 'SymbolicTensor' object has no attribute 'numpy'); "
            "with it the program runs (exit 0, 0 traces)") in err
    assert err.rstrip().endswith("and with the verified fixes it runs; no tf.function traced before or after")


def test_nothing_to_verify_is_said_plainly_and_changes_nothing(project, capsys):
    (project / "prog.py").write_text("import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x\n")
    (project / "main.py").write_text("from prog import f\n\nprint(f(1))\n")
    code, out, err = run_cli(verify_args("-q"), capsys)
    assert code == 0, err
    assert err.rstrip().endswith("nothing to verify: no candidate fix for this program")
    assert "runs" not in err.splitlines()[0] or "(1 run" in err.splitlines()[0]


def test_nothing_stable_to_compare_verifies_nothing_and_exits_1(project, capsys):
    """Its only output is a timing: the run cannot tell a fix that changes the results from one that does not."""
    # an elapsed time (not perf_counter_ns() itself: two readings hours after boot differ by less than
    # the 1e-5 relative tolerance, and the runs' stdout would compare as equal), of the import too: the
    # call alone takes some 6 us, which a clock read in steps of 10 ns gave twice alike now and then
    (project / "main.py").write_text("import time\n\nstart = time.perf_counter_ns()\nfrom prog import infer\n\n"
                                     "infer([1.0, 2.0])\nprint('took', time.perf_counter_ns() - start)\n")
    code, out, err = run_cli(verify_args(), capsys)
    assert code == 1, err
    assert (project / "prog.py").read_text() == PROG  # nothing verified, nothing written
    assert re.search(r"untested +prog\.py:10 +RTF002 +1 +nothing stable left to compare: the original's stdout "
                     r"varies between two of its own runs in every value it prints", err), err
    assert "compared: stdout (1 varying number masked)" in err
    assert "name what to compare with --compare-stdout REGEX or --compare PATH" in err.splitlines()[-2]
