"""Every case of the public-report corpus (benchmarks/reports/) is complete and held-out batches stay held out.

benchmarks/reports_check.py measures the tool against these cases; a case
without its hand fix, its recorded trace counts or its source cannot be
judged, and a held-out case rebuilt from a report that another case already
uses is not held out.  Reads only the case files: no TensorFlow, no runs.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

REPORTS = Path(__file__).resolve().parents[2] / "benchmarks" / "reports"
CASES = sorted(p for p in REPORTS.iterdir() if (p / "case.toml").is_file())
REQUIRED = {"source": str, "pattern": str, "hand_fix": str, "traces_before": int, "traces_hand_fix": int,
            "must_not_break": str}
#: slug prefix -> the ``batch`` its case.toml must name
HELD_OUT = {"h2-": "holdout-2", "h3-": "holdout-3"}


def _meta(case: Path) -> dict:
    return tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))


def _batch(case: Path) -> str | None:
    return next((batch for prefix, batch in HELD_OUT.items() if case.name.startswith(prefix)), None)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_is_complete(case: Path):
    meta = _meta(case)
    for key, kind in REQUIRED.items():
        if key == "traces_before" and meta.get("original_fails"):
            continue  # the original crashes: nothing to count
        assert isinstance(meta.get(key), kind), f"{case.name}: {key} missing or not {kind.__name__}"
    assert meta["source"].startswith("https://"), f"{case.name}: source is not a URL"
    assert (case / meta.get("main", "main.py")).is_file(), f"{case.name}: no entry point"
    assert (case / "hand_fix").is_dir() or (case / "hand_fix.patch").is_file(), f"{case.name}: no hand fix"
    if meta.get("retraces", True) is False and not meta.get("original_fails"):  # nothing to fix: the hand fix keeps the count
        assert meta["traces_hand_fix"] == meta["traces_before"], case.name
    assert meta.get("batch") == _batch(case), f"{case.name}: batch {meta.get('batch')!r}, slug says {_batch(case)!r}"


def test_held_out_batches_use_reports_no_other_case_uses():
    sources: dict[str, set[str | None]] = {}
    for case in CASES:
        sources.setdefault(_meta(case)["source"], set()).add(_batch(case))
    shared = {source: batches for source, batches in sources.items()
              if len(batches) > 1 and batches & set(HELD_OUT.values())}
    assert not shared, f"a held-out batch reuses another batch's report: {shared}"


def test_third_held_out_batch_has_twenty_cases_with_negatives():
    batch = [c for c in CASES if c.name.startswith("h3-")]
    assert len(batch) >= 20
    assert sum(_meta(c).get("retraces", True) is False for c in batch) >= 2
