"""Start a new code: ``python -m retrace_fix.scaffold RTF109 my-name --tier diagnostic``.

Run from the root of a retrace-fix checkout.  Writes

* ``codemods/my_name.py`` - the codemod module: its page (the docstring, with the
  four sections and an example to make true), its :class:`~retrace_fix.rules.Rule`
  and a command class whose hook reports nothing yet;
* ``golden/my-name/positive/`` and ``golden/my-name/negative/`` - a case the code
  must report (or fix) and one it must leave alone;

and regenerates the docs (``python docs/gen_docs.py``: the code's page, the index
and the ``mkdocs.yml`` nav).  Nothing else needs touching: :mod:`retrace_fix.codemods`
finds the module by itself.  The new code starts red on purpose:
``tests/codemods/test_rule_examples.py`` and ``tests/test_rules.py`` fail until the
example on its page and its positive golden case are reported (or fixed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from retrace_fix.findings import Tier
from retrace_fix.rules import CODE_PATTERN, NAME_PATTERN

EXIT_OK, EXIT_ERROR = 0, 2

_PAGE = '''"""{code} {name}.

What it does
    TODO: the code it reports{fix_what}, and the code it leaves alone.

Why it retraces
    TODO: why that code makes a tf.function trace again.

Example
    Before::

        @tf.function
        def step(x, n):
            return x * n

        for n in [1, 2, 3]:
            step(tf.ones([2]), n)  # {code}: TODO mark every line it reports

    {after_label}::

        @tf.function
        def step(x, n):
            return x * n

        for n in [1, 2, 3]:
            step(tf.ones([2]), tf.constant(n))

Fix safety
    {safety}
"""
'''

_DIAGNOSTIC = _PAGE + '''
from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._report_only import ReportOnlyCodemod
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("{code}", "{name}", Tier.DIAGNOSTIC, doc=__doc__, summary="{summary}")


class {cls}(ReportOnlyCodemod):
    RULES = (RULE,)
    ORDER = {order}
    TRIGGERS = (b"function",)  # files without any of these bytes are never parsed

    def visit_Call(self, node: cst.Call) -> None:
        if not self.in_tf_function:  # kept by the base class
            return
        # TODO: decide whether this call makes a tf.function retrace; where it does:
        # self.report(node, "what retraces here, and what to do by hand")
'''

_FIX = _PAGE + '''
from __future__ import annotations

import libcst as cst

from retrace_fix.codemods._base import RetraceCodemod
from retrace_fix.findings import Tier
from retrace_fix.rules import Rule

RULE = Rule("{code}", "{name}", Tier.{tier_name}, doc=__doc__, summary="{summary}")


class {cls}(RetraceCodemod):
    RULES = (RULE,)
    ORDER = {order}
    TRIGGERS = (b"function",)  # files without any of these bytes are never parsed

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self.in_tf_function:  # kept by the base class
            return updated_node
        # TODO: decide per site whether the fix keeps behaviour (its tier), then:
        # if not self.report(original_node, "what retraces here", Tier.{tier_name}):
        #     return updated_node  # suppressed, or unsafe without --unsafe-fixes
        # return <the rewritten node>
        return updated_node
'''

_POSITIVE = '''import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


for n in [1, 2, 3]:
    step(tf.ones([2]), n)  # TODO: the code {code} must report{fix_what}
'''

_NEGATIVE = '''import tensorflow as tf


@tf.function
def step(x, n):
    return x * n


for _ in range(3):
    step(tf.ones([2]), tf.constant(3))  # TODO: code {code} must leave alone
'''


class ScaffoldError(Exception):
    """A code, name or checkout the scaffold cannot use (reported in one line, exit 2)."""


def module_name(name: str) -> str:
    return name.replace("-", "_")


def class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-")) + "Command"


def _check(root: Path, code: str, name: str) -> None:
    if not CODE_PATTERN.match(code):
        raise ScaffoldError(f"code `{code}`: expected RTF and three digits (RTF109)")
    if not NAME_PATTERN.match(name):
        raise ScaffoldError(f"name `{name}`: expected lower-case words joined by '-' (static-shape-read)")
    for needed in ("codemods", "golden", "docs/gen_docs.py"):
        if not (root / needed).exists():
            raise ScaffoldError(f"{root}: no {needed} here; run it from the root of a retrace-fix checkout")
    from retrace_fix.codemods import RULES

    if code in RULES:
        raise ScaffoldError(f"{code} exists already ({RULES[code].name})")
    if any(rule.name == name for rule in RULES.values()):
        raise ScaffoldError(f"a rule named `{name}` exists already")
    for path in (root / "codemods" / f"{module_name(name)}.py", root / "golden" / name):
        if path.exists():
            raise ScaffoldError(f"{path.relative_to(root).as_posix()} exists already")


def _order(tier: Tier) -> int:
    """After the codemods of its kind: fixes below 100, diagnostics from 100 on."""
    from retrace_fix.codemods import REGISTRY

    if tier is Tier.DIAGNOSTIC:
        return max([cls.ORDER for cls in REGISTRY if cls.ORDER >= 100] or [90]) + 10
    return min(max([cls.ORDER for cls in REGISTRY if cls.ORDER < 100] or [0]) + 10, 99)


def scaffold(root: Path, code: str, name: str, tier: Tier, summary: str) -> list[Path]:
    """Write the module and the golden cases of a new code; returns what was written."""
    _check(root, code, name)
    fix_what = "" if tier is Tier.DIAGNOSTIC else " (and what it rewrites it to)"
    values = dict(
        code=code,
        name=name,
        summary=summary.replace("\\", "\\\\").replace('"', '\\"'),
        cls=class_name(name),
        order=_order(tier),
        tier_name=tier.name,
        fix_what=fix_what,
        after_label="By hand" if tier is Tier.DIAGNOSTIC else "After",
        safety=(
            "diagnostic only: TODO what to do by hand, and why it is not automatic."
            if tier is Tier.DIAGNOSTIC
            else f"{tier.value}: TODO why the rewrite keeps the program's results, decided per site."
        ),
    )
    module = root / "codemods" / f"{module_name(name)}.py"
    module.write_text((_DIAGNOSTIC if tier is Tier.DIAGNOSTIC else _FIX).format(**values), encoding="utf-8")
    written = [module]
    for case, template in (("positive", _POSITIVE), ("negative", _NEGATIVE)):
        directory = root / "golden" / name / case
        directory.mkdir(parents=True)
        source = template.format(**values)
        # no expected.py: the case must not change until the codemod does what its golden case says
        for file_name, text in (("input.py", source), ("findings.txt", "")):
            (directory / file_name).write_text(text, encoding="utf-8")
        written.append(directory)
    return written


def regenerate_docs(root: Path) -> None:
    proc = subprocess.run([sys.executable, "docs/gen_docs.py"], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ScaffoldError(f"docs/gen_docs.py failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        self.exit(EXIT_ERROR, f"retrace-fix scaffold: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m retrace_fix.scaffold", description=__doc__.split("\n\n")[0])
    parser.add_argument("code", help="the new code, e.g. RTF109")
    parser.add_argument("name", help="its name, e.g. static-shape-read (also the golden/ folder)")
    parser.add_argument("--tier", choices=[t.value for t in Tier], default=Tier.DIAGNOSTIC.value)
    parser.add_argument("--summary", default="TODO: one line for `retrace-fix codemods`")
    parser.add_argument("--root", type=Path, default=Path("."), help="the checkout (default: here)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        written = scaffold(root, args.code.upper(), args.name, Tier(args.tier), args.summary)
        regenerate_docs(root)
    except ScaffoldError as exc:
        print(f"retrace-fix scaffold: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    for path in written:
        print(f"wrote {path.relative_to(root).as_posix()}")
    print("regenerated the docs (python docs/gen_docs.py)")
    print(
        f"next: make the example on {args.code.upper()}'s page true and the positive case reported, then "
        f"`python -m pytest tests/codemods/test_rule_examples.py tests/test_rules.py -k {args.code.upper()}` "
        "and `python -m pytest tests/codemods/test_golden.py --update-golden`"
    )
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
