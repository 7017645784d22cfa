"""discover files → prefilter text → parse → run codemods → results.

The engine never imports TensorFlow.  One parse per file; the selected codemods
run one after another on that tree and share its analysis (imports, tf.function
sites, suppressions, positions) while it is unchanged.  Files whose bytes cannot
contain a target (no trigger text, no recorded traces) are never parsed.
"""

from __future__ import annotations

import ast
import io
import multiprocessing
import os
import sys
import tokenize
import traceback
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import libcst as cst
from libcst.codemod import CodemodContext

from codemods import REGISTRY, CodemodSettings, RetraceCodemod, all_codes
from retrace_fix.discovery import display_path, find_project_root
from retrace_fix.findings import FileResult, Finding

PARSE_ERROR_PREFIX = "cannot parse"


@dataclass(frozen=True)
class RunOptions:
    """Everything that decides what a run does to a file (picklable for workers)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    traces: Any = None  # retrace_fix.traces.model.TraceSet

    def code_selected(self, code: str) -> bool:
        code = code.upper()
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(i) for i in self.ignore)


@dataclass
class FileJob:
    path: Path  # absolute
    display: str
    relpath: str  # relative to the project root, for trace lookup


@dataclass
class RunResult:
    files: list[FileResult] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return [f.error for f in self.files if f.error]

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=Finding.sort_key)


def selected_codemods(options: RunOptions) -> list[type[RetraceCodemod]]:
    chosen = []
    for cls in REGISTRY:
        codes = [cls.CODE, *getattr(cls, "EXTRA_CODES", {})]
        if not any(options.code_selected(c) for c in codes):
            continue
        if cls.NEEDS_TRACES and options.traces is None:
            continue
        chosen.append(cls)
    return chosen


def unknown_codes(codes: Iterable[str]) -> list[str]:
    known = list(all_codes())
    return [c for c in codes if not any(k.startswith(c.upper()) for k in known)]


# --------------------------------------------------------------------------- one file


def read_source(path: Path) -> tuple[bytes, str, str]:
    """(raw bytes, decoded text, encoding); raises OSError / UnicodeDecodeError / SyntaxError."""
    data = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    return data, text, encoding


def might_contain_target(data: bytes, codemods: list[type[RetraceCodemod]], has_traces: bool) -> bool:
    if has_traces:
        return True
    return any(trigger in data for cls in codemods for trigger in cls.TRIGGERS)


def process_file(job: FileJob, options: RunOptions) -> FileResult:
    """Run the selected codemods over one file; never raises."""
    result = FileResult(path=job.display)
    try:
        data, text, encoding = read_source(job.path)
    except OSError as exc:
        result.error = f"{job.display}:1: cannot read: {exc.strerror or exc}"
        return result
    except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
        result.error = f"{job.display}:1: cannot decode: {exc}"
        return result
    result.original = result.fixed = text
    result.encoding = encoding
    codemods = selected_codemods(options)
    has_traces = options.traces is not None and _traces_mention(options.traces, job.relpath)
    if not might_contain_target(data, codemods, has_traces):
        # Nothing to rewrite, but a file that does not parse is still reported;
        # CPython's own parser is an order of magnitude cheaper than LibCST's.
        result.skipped = True
        syntax_error = quick_syntax_check(text)
        if syntax_error is not None:
            line, column, message = syntax_error
            result.error = f"{job.display}:{line}:{column}: {PARSE_ERROR_PREFIX}: {message}"
        return result
    try:
        tree = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        result.error = f"{job.display}:{exc.raw_line}:{exc.raw_column + 1}: {PARSE_ERROR_PREFIX}: {exc.message}"
        return result
    except (RecursionError, MemoryError) as exc:
        result.error = f"{job.display}:1: {PARSE_ERROR_PREFIX}: {type(exc).__name__}"
        return result
    settings = CodemodSettings(
        unsafe_fixes=options.unsafe_fixes,
        traces=options.traces if has_traces else None,
        relpath=job.relpath,
        source_text=text,
    )
    context = CodemodContext(filename=str(job.path))
    findings: list[Finding] = []
    for cls in codemods:
        codemod = cls(context, settings)
        try:
            tree = codemod.transform_module(tree)
        except Exception as exc:  # a codemod bug must not take the run down
            where = traceback.extract_tb(exc.__traceback__)[-1]
            result.error = (
                f"{job.display}:1: internal error in {cls.CODE}: {type(exc).__name__}: {exc} "
                f"({Path(where.filename).name}:{where.lineno}); file left unchanged"
            )
            result.fixed = text
            return result
        context = codemod.context
        findings.extend(f for f in codemod.findings if options.code_selected(f.code))
    new_text = tree.code
    if new_text != text:
        try:
            cst.parse_module(new_text)
        except cst.ParserSyntaxError as exc:  # pragma: no cover - a codemod bug
            result.error = f"{job.display}:1: internal error: fixed code does not parse ({exc.message}); file left unchanged"
            return result
    result.fixed = new_text
    result.findings = sorted((f.with_path(job.display) for f in findings), key=Finding.sort_key)
    return result


def quick_syntax_check(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) of the first syntax error CPython finds, else None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as exc:
            return exc.lineno or 1, exc.offset or 1, exc.msg
        except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
            return 1, 1, str(exc) or type(exc).__name__
    return None


def _traces_mention(traces: Any, relpath: str) -> bool:
    try:
        return bool(traces.find(relpath))
    except Exception:  # pragma: no cover - defensive: a trace set without find()
        return False


# --------------------------------------------------------------------------- many files


_WORKER_OPTIONS: RunOptions | None = None


def _init_worker(options: RunOptions) -> None:
    global _WORKER_OPTIONS
    _WORKER_OPTIONS = options


def _work(job: FileJob) -> FileResult:
    assert _WORKER_OPTIONS is not None
    return process_file(job, _WORKER_OPTIONS)


def make_jobs(files: list[Path]) -> list[FileJob]:
    cwd = Path.cwd()
    jobs = []
    roots: dict[Path, Path] = {}
    for path in files:
        directory = path.parent
        if directory not in roots:
            roots[directory] = find_project_root(directory)
        root = roots[directory]
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            rel = display_path(path, cwd)
        jobs.append(FileJob(path=path, display=display_path(path, cwd), relpath=rel))
    return jobs


def run(
    files: list[Path],
    options: RunOptions,
    jobs: int | None = None,
    on_result: Callable[[FileResult], None] | None = None,
) -> RunResult:
    """Process ``files``; results come back sorted by display path whatever ``jobs`` is."""
    work = make_jobs(files)
    workers = max(1, jobs or os.cpu_count() or 1)
    results: list[FileResult] = []
    if workers == 1 or len(work) < 2:
        for job in work:
            res = process_file(job, options)
            results.append(res)
            if on_result:
                on_result(res)
    else:
        context = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
        chunksize = max(1, min(16, len(work) // (workers * 4) or 1))
        with ProcessPoolExecutor(
            max_workers=min(workers, len(work)),
            mp_context=context,
            initializer=_init_worker,
            initargs=(options,),
        ) as pool:
            for res in pool.map(_work, work, chunksize=chunksize):
                results.append(res)
                if on_result:
                    on_result(res)
    results.sort(key=lambda r: r.path)
    return RunResult(files=results)
