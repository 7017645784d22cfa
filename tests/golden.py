"""Golden cases: ``golden/<codemod-name>/<case>/``.

Each case holds

* ``input.py`` — the code before;
* ``expected.py`` — the code after (equal to ``input.py`` when it must not change);
* ``findings.txt`` — every finding, one per line: ``LINE:COL: CODE[ [*]] [tier] message``
  (``[*]`` = the fix was applied), followed by ``    reason: ...`` when it has a reason
  (the full explanation: why unsafe, what was proven, what blocks);
* optional ``case.toml`` — ``unsafe-fixes = true``, ``select = [...]`` (default:
  the codes of the codemod the directory is named after), ``verify-candidates =
  true`` (the candidates of a ``--verify`` run: unsafe fixes and verifiable
  diagnostics are edited);
* optional ``traces.json`` — recorded traces, keyed by file ``input.py``;
* optional ``drive.py`` — a program that imports the case's module and prints
  results (executed before and after by the semantic tests).

Semantic tests (``tests/test_semantic_golden_tf.py``, real TensorFlow): ``drive.py``
does ``from input import ...`` and is run once with ``input.py`` and once with
``expected.py`` (as ``input.py``), seeds reset (``keras.utils.set_random_seed(0)``),
under the trace recorder.  Both runs must succeed and print the same stdout (numbers
within rtol 1e-5); lines starting with ``traces`` (``traces 3``, ``traces f 3``)
report trace counts: not compared as outputs, their numbers must not grow; no
function of ``input.py`` may trace more after than before.  ``case.toml`` may add a
``[semantic]`` table: ``before = "raises"`` (the original must fail, e.g. Keras 3
``predict`` in a tf.function; the fixed code must run), ``raises = "REGEX"`` (the
original's error matches), ``traces-after = { qualname = N }`` (recorded traces
after the fix).  A drive may also assert its own invariants (an ``AssertionError``
fails the case), e.g. that the fixed code equals an eager reference.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from retrace_fix.codemods import RULES
from retrace_fix.engine import FileJob, RunOptions, process_file
from retrace_fix.findings import FileResult, Finding

GOLDEN_ROOT = Path(__file__).resolve().parent.parent / "golden"


@dataclass
class GoldenCase:
    directory: Path

    @property
    def id(self) -> str:
        return f"{self.directory.parent.name}/{self.directory.name}"

    @property
    def codemod_name(self) -> str:
        return self.directory.parent.name

    def settings(self) -> dict:
        path = self.directory / "case.toml"
        return tomllib.loads(path.read_text()) if path.exists() else {}

    def options(self) -> RunOptions:
        settings = self.settings()
        select = settings.get("select")
        if select is None:
            select = [code for code, rule in RULES.items() if rule.golden == self.codemod_name]
            assert select, f"golden/{self.codemod_name}: no rule has its cases there"
        traces = None
        if (self.directory / "traces.json").exists():
            from retrace_fix.traces.model import load_trace_files

            traces = load_trace_files([str(self.directory / "traces.json")])
        return RunOptions(
            select=tuple(select),
            ignore=tuple(settings.get("ignore", ())),
            unsafe_fixes=bool(settings.get("unsafe-fixes", False)),
            traces=traces,
            verify_candidates=bool(settings.get("verify-candidates", False)),
        )

    def run_on(self, source: Path, workdir: Path) -> FileResult:
        """Run the engine on ``source`` copied to ``workdir/input.py`` (so traces match)."""
        target = workdir / "input.py"
        if source.resolve() != target.resolve():
            shutil.copyfile(source, target)
        job = FileJob(path=target, display="input.py", relpath="input.py")
        return process_file(job, self.options())


def discover_cases() -> list[GoldenCase]:
    return [
        GoldenCase(case)
        for codemod_dir in sorted(GOLDEN_ROOT.iterdir())
        if codemod_dir.is_dir()
        for case in sorted(codemod_dir.iterdir())
        if (case / "input.py").exists()
    ]


def render_findings(findings: list[Finding]) -> str:
    """One line per finding; its ``reason`` (the full explanation), when it has one, on the next
    line, indented: ``    reason: ...``."""
    lines = []
    for f in findings:
        mark = " [*]" if f.applied else ""
        lines.append(f"{f.line}:{f.column + 1}: {f.code}{mark} [{f.tier.value}] {f.message}")
        if f.reason:
            lines.append(f"    reason: {f.reason}")
    return "".join(line + "\n" for line in lines)
