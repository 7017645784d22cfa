"""Every golden case: exact rewritten text, exact findings, and idempotence."""

from __future__ import annotations

import pytest

from tests.golden import GoldenCase, discover_cases, render_findings

CASES = discover_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case(case: GoldenCase, tmp_path, request):
    result = case.run_on(case.directory / "input.py", tmp_path)
    assert result.error is None, result.error
    expected_path = case.directory / "expected.py"
    findings_path = case.directory / "findings.txt"
    findings = render_findings(result.findings)
    if request.config.getoption("--update-golden"):
        expected_path.write_text(result.fixed, encoding="utf-8")
        findings_path.write_text(findings, encoding="utf-8")
    assert result.fixed == expected_path.read_text(encoding="utf-8")
    assert findings == findings_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_case_is_idempotent(case: GoldenCase, tmp_path):
    """Running again on the expected output changes nothing."""
    result = case.run_on(case.directory / "expected.py", tmp_path)
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
        changed = [c for c in cases if (c.directory / "expected.py").read_bytes() != (c.directory / "input.py").read_bytes()]
        unchanged = [c for c in cases if c not in changed]
        if cls.TIER.value != "diagnostic":
            assert changed, f"{cls.CODE} {cls.NAME}: no positive golden case"
        assert unchanged, f"{cls.CODE} {cls.NAME}: no must-not-change golden case"
