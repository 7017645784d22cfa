"""Every ``Example`` of every rule's page (``retrace-fix explain CODE``) runs as a golden case.

* *Before* → *After*: the codemod writes exactly the *After* block, and changes it no more.
* *Before* / *By hand* (diagnostics): *Before* is not edited and the code reports on every
  line marked ``# CODE`` in it; what a person writes *By hand* gets no finding of that code.

Examples that need recorded traces run in ``tests/codemods/test_rule_examples_tf.py``.
"""

from __future__ import annotations

import pytest

from retrace_fix.rules import Example, Rule
from tests.support.rule_examples import check_fix, examples, program, run

STATIC = examples(traced=False)


def test_every_rule_has_an_example():
    from retrace_fix.codemods import RULES

    assert [code for code, rule in RULES.items() if not rule.examples] == []


@pytest.mark.parametrize("rule, example", [(r, e) for _, r, e in STATIC], ids=[i for i, _, _ in STATIC])
def test_example(rule: Rule, example: Example, tmp_path):
    if not example.by_hand:
        check_fix(tmp_path, rule, example)
        return
    before = program(example.before)
    result = run(tmp_path, before, rule, example)
    assert result.fixed == before, f"{rule.code} is a diagnostic: it never edits"
    reported = {f.line for f in result.findings if f.code == rule.code}
    marked = {n for n, line in enumerate(before.splitlines(), 1) if f"# {rule.code}" in line}
    assert reported, f"{rule.code}: no finding on the page's Before"
    assert marked <= reported, f"{rule.code}: lines {sorted(marked - reported)} are marked but not reported"
    assert "tf.function" in example.after, f"{rule.code}: the By hand block shows no tf.function"
    by_hand = run(tmp_path, program(example.after), rule, example)
    assert [f.message for f in by_hand.findings if f.code == rule.code] == []
