"""Golden cases: ``golden/<codemod-name>/<case>/``.

Each case holds

* ``input.py`` — the code before;
* ``expected.py`` — the code after; **no** ``expected.py`` means the case must not change
  (the output must equal ``input.py`` byte for byte);
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

Semantic tests (``tests/codemods/test_semantic_golden_tf.py``, real TensorFlow): ``drive.py``
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

import difflib
import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from retrace_fix.codemods import RULES
from retrace_fix.engine import transform
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file
from retrace_fix.findings import FileResult, Finding

GOLDEN_ROOT = Path(__file__).resolve().parents[2] / "golden"


@dataclass
class GoldenCase:
    directory: Path

    @property
    def id(self) -> str:
        return f"{self.directory.parent.name}/{self.directory.name}"

    @property
    def changes(self) -> bool:
        """Does the case rewrite its input (it has an ``expected.py``)?"""
        return (self.directory / "expected.py").is_file()

    @property
    def expected_path(self) -> Path:
        """``expected.py``, or ``input.py`` for a case that must not change."""
        return self.directory / ("expected.py" if self.changes else "input.py")

    @property
    def node_id(self) -> str:
        """The pytest node id of its golden test (what ``--update-golden`` is given to update this one case)."""
        return f"tests/codemods/test_golden.py::test_golden_case[{self.id}]"

    @property
    def codemod_name(self) -> str:
        return self.directory.parent.name

    def settings(self) -> dict:
        path = self.directory / "case.toml"
        return tomllib.loads(path.read_text()) if path.exists() else {}

    def options(self) -> RunOptions:
        """The case's run options (read once per process: ``case.toml`` and ``traces.json`` do not change)."""
        key = self.directory.resolve()
        if key not in _OPTIONS:
            _OPTIONS[key] = self._read_options()
        return _OPTIONS[key]

    def _read_options(self) -> RunOptions:
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
        """Run the engine on ``source`` as ``workdir/input.py`` (so traces match): its bytes go
        with the job (``FileJob.data``, from which the engine reads them as it reads a file's,
        and nothing else), not copied there; ``workdir`` holds no other file either."""
        target = workdir / "input.py"
        job = FileJob(path=target, display="input.py", relpath="input.py", data=source.read_bytes())
        return process_file(job, self.options())

    def shared_run(self, source: Path, workdir: Path) -> "EngineRun":
        """:meth:`run_on` ``source`` (the case's ``input.py`` or ``expected.py``) with the case's
        options, computed once per process and shared by the tests that only read it
        (``tests/codemods/test_golden.py``, ``tests/test_partial_parse.py``); it also says
        whether the result came from a partially parsed text."""
        key = (self.directory.resolve(), source.name)
        if key not in _RUNS:
            _RUNS[key] = engine_run(lambda: self.run_on(source, workdir))
        return _RUNS[key]

    def known_run(self, source: Path) -> "EngineRun | None":
        """The :meth:`shared_run` of ``source`` if this process has it already."""
        return _RUNS.get((self.directory.resolve(), source.name))

    def remember_run(self, source: Path, run: "EngineRun") -> None:
        """Store ``run``, the engine's result for ``source`` with the case's options, for :meth:`shared_run`."""
        _RUNS.setdefault((self.directory.resolve(), source.name), run)


@dataclass(frozen=True)
class EngineRun:
    """One engine run's result and how LibCST saw the module."""

    result: FileResult
    #: the result came from a partially parsed text (:mod:`retrace_fix.partial_parse`), not
    #: from a run of the whole module
    from_partial_text: bool


_OPTIONS: dict[Path, RunOptions] = {}
_RUNS: dict[tuple[Path, str], EngineRun] = {}


def engine_run(run) -> EngineRun:
    """Call ``run()`` (one engine run), recording the texts the engine transformed."""
    real = transform._transform_text
    signature = inspect.signature(real)
    partial_texts: list[bool] = []

    def recording(*args, **kwargs):
        partial_texts.append(signature.bind(*args, **kwargs).arguments.get("source") is not None)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transform, "_transform_text", recording)
        result = run()
    return EngineRun(result, partial_texts == [True])


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


def write_expected(case: GoldenCase, fixed: str) -> None:
    """``--update-golden``: store ``fixed`` as the case's expectation (no ``expected.py`` when unchanged)."""
    path = case.directory / "expected.py"
    if fixed == (case.directory / "input.py").read_text(encoding="utf-8"):
        path.unlink(missing_ok=True)
    else:
        path.write_text(fixed, encoding="utf-8")


_FINDING_POSITION = re.compile(r"^(\d+):(\d+): ")


def _pointed(line: str, source_lines: list[str]) -> list[str]:
    """A finding line, then the source line it points at with a caret under the column."""
    out = [line]
    match = _FINDING_POSITION.match(line.lstrip("+- "))
    if match:
        number, column = int(match.group(1)), int(match.group(2))
        if 1 <= number <= len(source_lines):
            text = source_lines[number - 1].rstrip("\r\n")
            gutter = f"{number:>5} | "
            out.append(f"      {gutter}{text}")
            out.append(f"      {' ' * len(gutter)}{' ' * (column - 1)}^")
    return out


def review_message(case: GoldenCase, fixed: str, findings: str) -> str | None:
    """What a reviewer needs when a case fails (None: it passes): the case path, each finding that
    differs with its source line and a caret, the diff of the rewritten code, and the command that
    updates this one case."""
    expected_text = case.expected_path.read_text(encoding="utf-8")
    expected_findings = (case.directory / "findings.txt").read_text(encoding="utf-8")
    if fixed == expected_text and findings == expected_findings:
        return None
    where = case.directory.relative_to(GOLDEN_ROOT.parent).as_posix()
    source_lines = (case.directory / "input.py").read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [f"golden case {where} differs from what the codemods do now"]
    if findings != expected_findings:
        lines.append("findings (- expected in findings.txt, + now):")
        for line in difflib.ndiff(expected_findings.splitlines(), findings.splitlines()):
            if line[:1] in "-+" and not line[2:].startswith("    reason:"):
                lines.extend("  " + text for text in _pointed(line, source_lines))
            elif line[:1] in "-+":
                lines.append("  " + line)
    if fixed != expected_text:
        label = f"{where}/{case.expected_path.name}"
        if case.changes:
            lines.append("rewritten code (- expected.py, + now):")
        else:
            lines.append("the case must not change (no expected.py), but the code was rewritten:")
        diff = difflib.unified_diff(expected_text.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                    fromfile=label, tofile="rewritten now")
        lines.extend("  " + line.rstrip("\n") for line in diff)
    lines.append(f"if the new behaviour is right, update this case: python -m pytest '{case.node_id}' --update-golden")
    return "\n".join(lines)
