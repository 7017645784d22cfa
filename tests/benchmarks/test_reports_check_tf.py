"""benchmarks/reports_check.py on two cases of the public-report corpus (real TensorFlow runs).

The checker is how every change is measured against programs rebuilt from
public retracing reports; a checker that miscounts traces, misses a broken
program or reports noise would hide exactly what it is there to show.

Two small cases only (five TensorFlow processes): one that does not retrace
(the default run must leave it alone) and one whose batch size varies (the
default run must reach the hand fix's single trace with the same outputs).
The verdict logic (crash, different output, more traces) is checked on
hand-made runs without TensorFlow.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")  # skipped, not an error, where TensorFlow is not installed

pytestmark = pytest.mark.tf

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
NO_RETRACE, BATCHES = "signature-already-general", "genomatnn-generator-batches"


def _load():
    if "reports_check" not in sys.modules:  # dataclasses look their module up in sys.modules
        spec = importlib.util.spec_from_file_location("reports_check", BENCHMARKS / "reports_check.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["reports_check"] = module
        spec.loader.exec_module(module)
    return sys.modules["reports_check"]


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    module = _load()
    out = tmp_path_factory.mktemp("reports") / "figures.json"
    status = module.main(["--only", NO_RETRACE, BATCHES, "--jobs", "2", "--modes", "default", "--json", str(out)])
    return status, json.loads(out.read_text())


def test_figures_of_two_cases(checked, capsys):
    status, figures = checked
    assert status == 0
    results = {r["case"]: r for r in figures["results"]}
    assert set(results) == {NO_RETRACE, BATCHES}
    for result in results.values():  # the measured counts are the ones case.toml records
        assert result["problems"] == []

    quiet = results[NO_RETRACE]
    assert (quiet["original"]["exit_code"], quiet["original"]["traces"]) == (0, 1)
    assert quiet["modes"]["default"]["applied"] == [] and quiet["modes"]["default"]["diagnostics"] == []
    assert quiet["modes"]["default"]["changed"] is False

    fixed = results[BATCHES]
    assert fixed["original"]["traces"] == 5
    assert fixed["original"]["per_function"] == {"apply.py::predict_batch": 5}
    default = fixed["modes"]["default"]
    assert default["changed"] and default["broken"] == []
    assert default["run"]["traces"] == 1 and fixed["hand_fix"]["traces"] == 1
    assert default["run"]["output"] == fixed["original"]["output"]

    totals = figures["totals"]
    assert totals["cases"] == 2 and totals["broken_default"] == [] and totals["noise"] == []
    assert (totals["traces_before"], totals["traces_default"], totals["traces_hand_fix"]) == (6, 2, 2)
    assert totals["at_hand_fix_default"] == sorted([BATCHES, NO_RETRACE])
    assert totals["improved_default"] == [BATCHES]


def test_table_rows_and_totals(checked, capsys):
    module = _load()
    _, figures = checked
    table = module.render(figures["results"], figures["totals"]).splitlines()
    row = next(line for line in table if line.startswith(BATCHES))
    assert [cell.strip() for cell in row.split("|")][:7] == [BATCHES, "5", "1", "n/a", "1", "yes", "no"]
    assert "broken by the default run: 0" in "\n".join(table)
    assert "at the hand fix's level: default 2/2" in "\n".join(table)


def test_broken_verdicts_without_tensorflow():
    module = _load()
    case = module.Case("c", Path("."), {"rtol": 1e-6})
    original = module.Run(exit_code=0, traces=3, output=[1.0, 2.0])
    assert module.judge(case, original, module.Run(exit_code=0, traces=1, output=[1.0, 2.0])) == []
    crashed = module.Run(exit_code=1, traces=0, stderr_tail="TypeError: Expected int32")
    assert module.judge(case, original, crashed) == ["exit 1: TypeError: Expected int32"]
    differs = module.judge(case, original, module.Run(exit_code=0, traces=1, output=[1.0, 2.5]))
    assert differs == ["output differs: [1]: 2.0 before, 2.5 after"]
    assert module.judge(case, original, module.Run(exit_code=0, traces=4, output=[1.0, 2.0])) == [
        "more traces: 3 -> 4"]
    # an original that fails is no baseline: the fixed program cannot be worse
    assert module.judge(case, module.Run(exit_code=1, traces=0), module.Run(exit_code=0, traces=1)) == []
    assert module.error_line("Traceback (most recent call last):\n  File x\nValueError: bad\nretrace-fix: recorded") \
        == "ValueError: bad"
