"""The table of codes: one rule per code, declared in the module that reports it, and consistent."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.codemods import DEFERS_TO, REGISTRY, RULES, _table, codemod_for, documentation, rule
from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def make_rule(code: str = "RTF901", name: str = "demo-rule", **changes) -> Rule:
    fields = dict(code=code, name=name, tier=Tier.DIAGNOSTIC, summary="s", doc="d", golden="demo")
    return Rule(**{**fields, **changes})


def test_registry_order_is_the_engines():
    # RTF005 first: it rewrites call sites at the positions the recording gave, before anything moves them;
    # RTF008 and RTF007 rewrite bodies that RTF003 and RTF001 then read; RTF006 moves defs after the
    # trace-driven codemods matched them to their traces by their original place
    assert [cls.CODE for cls in REGISTRY] == [
        "RTF005", "RTF002", "RTF008", "RTF007", "RTF003", "RTF001", "RTF004", "RTF006", "RTF009", "RTF010",
        "RTF102", "RTF101",
    ]


def test_one_rule_per_code_and_its_codemod():
    assert list(RULES) == sorted(RULES)
    for cls in REGISTRY:
        for declared in cls.RULES:
            assert RULES[declared.code] is declared
            assert codemod_for(declared.code) is cls
            assert declared.golden == cls.NAME, f"{declared.code}: golden/{declared.golden} is not golden/{cls.NAME}"
    assert rule("rtf002") is RULES["RTF002"] and rule("RTF999") is None and codemod_for("RTF999") is None
    assert documentation("RTF999") is None


def test_defers_to_comes_from_the_rules():
    assert dict(DEFERS_TO) == {
        "RTF001": ("RTF007",), "RTF003": ("RTF005",), "RTF101": ("RTF006",),
        "RTF103": ("RTF001", "RTF003", "RTF005", "RTF007"), "RTF105": ("RTF003", "RTF005"),
        "RTF106": ("RTF008",),
    }


@pytest.mark.parametrize("code", list(RULES))
def test_every_code_reports_in_a_golden_case(code):
    folder = GOLDEN / RULES[code].golden
    cases = [c for c in folder.iterdir() if (c / "input.py").exists()]
    assert cases, f"golden/{RULES[code].golden} holds no case"
    assert any(re.search(rf"^\d+:\d+: {code}\b", (c / "findings.txt").read_text(), re.M) for c in cases), (
        f"{code}: no golden case in golden/{RULES[code].golden} reports it"
    )


def test_a_codemods_module_docstring_is_its_page_or_names_its_codes():
    for cls in REGISTRY:
        doc = sys.modules[cls.__module__].__doc__ or ""
        if len(cls.RULES) == 1:
            assert cls.RULES[0].doc == doc
            assert doc.splitlines()[0] == f"{cls.CODE} {cls.NAME}."
        else:
            named = re.findall(r"RTF\d{3}", doc.splitlines()[0])
            assert named == [r.code for r in cls.RULES], f"{cls.__module__}: its first line names {named}"


def test_a_single_rule_codemod_takes_its_name_summary_and_tier():
    for cls in REGISTRY:
        if len(cls.RULES) == 1:
            only = cls.RULES[0]
            assert (cls.CODE, cls.NAME, cls.SUMMARY, cls.TIER) == (only.code, only.name, only.summary, only.tier)
        assert cls.DESCRIPTION == f"{cls.CODE} {cls.NAME}: {cls.SUMMARY}"


def test_rule_fields_are_checked():
    with pytest.raises(ValueError, match="RTF and three digits"):
        make_rule(code="RTF12")
    with pytest.raises(ValueError, match="lower-case words"):
        make_rule(name="Bad_Name")


def test_the_table_refuses_a_code_declared_twice_or_an_unknown_winner():
    class One(RetraceCodemod):
        RULES = (make_rule(),)

    class Two(RetraceCodemod):
        RULES = (make_rule(name="other-rule"),)

    with pytest.raises(RuntimeError, match="RTF901 is declared by One and Two"):
        _table([One, Two])

    class Three(RetraceCodemod):
        RULES = (make_rule(code="RTF902", defers_to=("RTF903",)),)

    with pytest.raises(RuntimeError, match="defers to unknown code RTF903"):
        _table([Three])


def test_report_refuses_a_code_the_codemod_did_not_declare():
    cls = codemod_for("RTF102")
    codemod = cls(CodemodContext())
    tree = cst.parse_module("import time\n")
    codemod.analysis = ModuleAnalysis.build(tree)
    with pytest.raises(ValueError, match="reports RTF101, which is none of its RULES"):
        codemod.report(tree.body[0], "message", Tier.DIAGNOSTIC, code="RTF101")


def test_a_rule_without_a_golden_folder_named_uses_its_name():
    rule = Rule("RTF099", "demo-rule", Tier.DIAGNOSTIC, summary="s", doc="d")
    assert rule.golden == "demo-rule"
    assert Rule("RTF099", "demo-rule", Tier.DIAGNOSTIC, summary="s", doc="d", golden="other").golden == "other"
