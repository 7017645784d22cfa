"""Every golden case: exact rewritten text, exact findings, and idempotence."""

from __future__ import annotations

import pytest

from tests.support.golden import GoldenCase, discover_cases, render_findings, review_message, write_expected

CASES = discover_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case(case: GoldenCase, tmp_path, request):
    result = case.shared_run(case.directory / "input.py", tmp_path).result
    assert result.error is None, result.error
    findings = render_findings(result.findings)
    if request.config.getoption("--update-golden"):
        write_expected(case, result.fixed)
        (case.directory / "findings.txt").write_text(findings, encoding="utf-8")
    message = review_message(case, result.fixed, findings)
    if message is not None:
        pytest.fail(message, pytrace=False)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case_is_idempotent(case: GoldenCase, tmp_path):
    """Running again on the expected output changes nothing."""
    result = case.shared_run(case.expected_path, tmp_path).result
    assert result.error is None, result.error
    assert result.fixed == result.original
    assert not any(f.applied for f in result.findings)


def test_every_codemod_has_positive_and_negative_cases():
    from retrace_fix.codemods import REGISTRY

    by_codemod: dict[str, list[GoldenCase]] = {}
    for case in CASES:
        by_codemod.setdefault(case.codemod_name, []).append(case)
    for cls in REGISTRY:
        cases = by_codemod.get(cls.NAME, [])
        changed = [c for c in cases if c.changes]
        unchanged = [c for c in cases if c not in changed]
        if cls.TIER.value != "diagnostic":
            assert changed, f"{cls.CODE} {cls.NAME}: no positive golden case"
        assert unchanged, f"{cls.CODE} {cls.NAME}: no must-not-change golden case"


def test_an_expected_py_is_never_a_copy_of_its_input():
    """A case that must not change has no expected.py (``--update-golden`` deletes one that became equal)."""
    copies = [c.id for c in CASES if c.changes and (c.directory / "expected.py").read_bytes() == (c.directory / "input.py").read_bytes()]
    assert copies == [], f"delete their expected.py: {copies}"


def test_a_failing_case_reads_like_a_review(tmp_path, monkeypatch):
    import tests.support.golden as golden

    root = tmp_path / "golden"
    case_dir = root / "reduce-retracing" / "demo"
    case_dir.mkdir(parents=True)
    source = "import tensorflow as tf\n\n\n@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"
    (case_dir / "input.py").write_text(source)
    (case_dir / "findings.txt").write_text("")  # stale: the case claims nothing happens
    monkeypatch.setattr(golden, "GOLDEN_ROOT", root)
    case = GoldenCase(case_dir)
    result = case.run_on(case_dir / "input.py", tmp_path)
    message = review_message(case, result.fixed, render_findings(result.findings))
    lines = message.splitlines()
    assert lines[0] == "golden case golden/reduce-retracing/demo differs from what the codemods do now"
    assert lines[1] == "findings (- expected in findings.txt, + now):"
    assert lines[2].startswith("  + 4:2: RTF004 [*] [safe] ")
    assert lines[3] == "            4 | @tf.function(experimental_relax_shapes=True)"
    assert lines[4] == "                 ^"  # under column 2, the decorator's expression
    assert "the case must not change (no expected.py), but the code was rewritten:" in lines
    assert "  --- golden/reduce-retracing/demo/input.py" in lines and "  +++ rewritten now" in lines
    assert "  +@tf.function(reduce_retracing=True)" in lines
    assert lines[-1] == ("if the new behaviour is right, update this case: "
                         "python -m pytest 'tests/codemods/test_golden.py::test_golden_case[reduce-retracing/demo]' --update-golden")
    # the update writes an expected.py only when the code changes
    write_expected(case, result.fixed)
    assert (case_dir / "expected.py").read_text() == result.fixed
    write_expected(case, source)
    assert not (case_dir / "expected.py").exists()
