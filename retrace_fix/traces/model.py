"""The portable trace file: data model, JSON load/save, merging and validation.

Pure Python on purpose: the rewriter, the ``report`` command and the tests use
this module without TensorFlow installed.  The format is documented in
``docs/trace-format.md``; the short version::

    {"format": "retrace-fix-traces", "version": 2, "tensorflow": "2.21.0",
     "functions": [{"file": "pkg/train.py", "qualname": "Trainer.step",
                    "firstlineno": 12, "name": "step", "params": ["self", "x"],
                    "calls": 30, "reduce_retracing": false,
                    "has_input_signature": false,
                    "traces": [{"args": {"self": {...}, "x": {...}},
                                "count": 1, "nested": false, "via": "call",
                                "seconds": 0.0123}],
                    "call_sites": [{"file": "pkg/run.py", "line": 40, "column": 8, "count": 3}],
                    "proofs": [{"candidate": "input_signature: x=...", "fix": "input_signature",
                                "result": "traced"}]}]}

Every argument value is a *value descriptor*, a JSON object whose ``kind`` key
selects the rest (``tensor``, ``ragged``, ``sparse``, ``variable``,
``python``, ``object``, ``list``, ``tuple``, ``dict``, ``namedtuple``,
``per_replica``, ``other``).  ``seconds`` is optional (files recorded before it
existed have none): the wall time of the call(s) that made the trace.
``variable_creation`` is optional too (absent: 0): the further traces TensorFlow
made of that signature because a first call created variables; a function's
``total_traces`` (count plus those) is TensorFlow's ``experimental_get_tracing_count()``.

Version 2 added ``call_sites`` (where the traced calls came from) and
``proofs`` (each candidate fix trial-traced on the live function at the end of
the recording, see :mod:`retrace_fix.traces.signature_candidates`); version-1 files load
with neither.  Version 3 added ``wraps`` and ``bound`` (a tf.function of a
``functools.partial`` or a callable object, recorded at the code it calls);
a file is written as version 3 only when it holds such a record, so that a
version-2 reader, which would take that code for a tf.function, refuses it.
"""

from __future__ import annotations

import json
import keyword
import math
import os
import posixpath
import re
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from retrace_fix.sources.bounded_read import InputError
from retrace_fix.sources.bounded_read import read_limited as read_input
from retrace_fix.traces import json_limits
from retrace_fix.traces.json_limits import JSONLimitError, loads_limited, one_line
from retrace_fix.sources.writes import write_file

FORMAT = "retrace-fix-traces"
#: the newest format version this reader supports (and writes when a function has ``wraps``)
VERSION = 3
#: the version written for a file without ``wraps`` records: readers of version 2 read it whole
BASE_VERSION = 2

#: The ``via`` values a trace may carry.
VIA_VALUES = ("call", "get_concrete_function")

#: Every value-descriptor kind (``per_replica`` since format version 2).
VALUE_KINDS = (
    "tensor",
    "ragged",
    "sparse",
    "variable",
    "python",
    "object",
    "list",
    "tuple",
    "dict",
    "namedtuple",
    "per_replica",
    "other",
)

#: The ``fix`` values of a proof (see :mod:`retrace_fix.traces.signature_candidates`).
PROOF_FIXES = ("input_signature", "reduce_retracing", "call_site", "scalar", "cast")
#: The ``result`` values of a proof, strongest first: when merged files disagree about
#: one candidate, a failure wins over a success, and any run outcome over ``not_run``.
PROOF_RESULTS = ("failed", "traced", "not_run")


class TraceFileError(Exception):
    """A trace file cannot be used; the message is one line naming the file."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


# ---------------------------------------------------------------------------
# data model


@dataclass
class Trace:
    """One distinct trace (concrete function) of a tf.function."""

    args: dict[str, dict]
    count: int = 1
    nested: bool = False
    via: str = "call"
    #: Wall time in seconds of the ``count`` calls that made this trace (entry to return of the
    #: ``__call__``/``get_concrete_function`` during which it was traced: tracing, plus that first
    #: execution for a call), summed; None when not recorded (files written before the field existed).
    seconds: float | None = None
    #: Further traces TensorFlow made of this very signature because the call created variables:
    #: its first call of a tf.function traces under a variable-creation scope, lifts the
    #: initializers of the variables it created, then traces again with variable creation
    #: forbidden, and keeps both concrete functions (``experimental_get_tracing_count()`` counts
    #: both).  One per Function object whose first call created variables; 0 when none (files
    #: written before the key existed have none).  Counted in :attr:`FunctionTraces.total_traces`,
    #: never a retrace of its own (it is not a distinct signature).
    variable_creation: int = 0

    def identity(self) -> str:
        """The deduplication key: arguments, ``nested`` and ``via`` (not ``count`` or ``seconds``)."""
        return json.dumps([self.args, self.nested, self.via], sort_keys=True, separators=(",", ":"))

    def to_json(self) -> dict:
        data = {"args": self.args, "count": self.count, "nested": self.nested, "via": self.via}
        if self.seconds is not None:
            data["seconds"] = self.seconds
        if self.variable_creation:
            data["variable_creation"] = self.variable_creation
        return data

    @property
    def total(self) -> int:
        """TensorFlow's traces of this signature: ``count`` plus the variable-creation traces."""
        return self.count + self.variable_creation

    def copy(self) -> Trace:
        return Trace(args=self.args, count=self.count, nested=self.nested, via=self.via, seconds=self.seconds,
                     variable_creation=self.variable_creation)


def add_seconds(a: float | None, b: float | None) -> float | None:
    """``a + b`` rounded to microseconds; None only when both are None (an unknown time counts as 0)."""
    if a is None and b is None:
        return None
    return round((a or 0.0) + (b or 0.0), 6)


@dataclass
class CallSite:
    """Where traced calls of a tf.function came from (deduplicated, with a count)."""

    file: str  # relative to the project root, POSIX
    line: int
    column: int | None = None  # 0-based column of the call expression, when Python gives it
    count: int = 1

    @property
    def key(self) -> tuple:
        return (self.file, self.line, self.column)

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.column, "count": self.count}


@dataclass
class Proof:
    """The outcome of trial-tracing one candidate fix on a fresh tf.function around the live function."""

    fix: str  # one of PROOF_FIXES
    result: str  # traced | failed | not_run
    error: str | None = None  # failed: "TypeError: Input 'y' of 'Pow' Op has type int32 ..."
    note: str | None = None  # not_run: why (time budget, instance no longer alive, ...)

    @property
    def traced(self) -> bool:
        return self.result == "traced"

    @property
    def failed(self) -> bool:
        return self.result == "failed"

    def to_json(self, key: str) -> dict:
        data: dict = {"candidate": key, "fix": self.fix, "result": self.result}
        if self.error is not None:
            data["error"] = self.error
        if self.note is not None:
            data["note"] = self.note
        return data


def stronger_proof(a: Proof, b: Proof) -> Proof:
    """The proof that wins when two files hold one candidate (see :data:`PROOF_RESULTS`)."""
    return a if PROOF_RESULTS.index(a.result) <= PROOF_RESULTS.index(b.result) else b


@dataclass
class FunctionTraces:
    """Everything recorded about one tf.function, identified by its source position."""

    file: str
    qualname: str
    firstlineno: int
    name: str
    params: list[str]
    calls: int
    traces: list[Trace] = field(default_factory=list)
    reduce_retracing: bool = False
    has_input_signature: bool = False
    #: where the traced calls came from (format version 2), first-seen order
    call_sites: list[CallSite] = field(default_factory=list)
    #: candidate key -> outcome of its trial trace (format version 2), in the order they were tried
    proofs: dict[str, Proof] = field(default_factory=dict)
    #: traces that repeated an identical (not nested) trace within one recorded process: each is
    #: a new tf.function object made at this source location (merged files: the largest); 0 when
    #: none, or not recorded (files written before the key existed)
    recreated: int = 0
    #: format version 3: how the traced code was wrapped, for a tf.function of a ``functools.partial``
    #: (``"functools.partial"``, ``"functools.partialmethod"``) or a callable object (``"callable
    #: object"``): its position is the wrapped code's, which is not itself a tf.function, so no codemod
    #: edits it (:meth:`TraceSet.find` leaves it out).  None for a function or method.
    wraps: str | None = None
    #: with ``wraps``: the parameters of the code that the wrapper binds and the call does not pass
    #: (a partial's positional arguments and keywords, a callable object's ``self``)
    bound: list[str] = field(default_factory=list)
    #: of the `recreated` re-creations, how many closed over a variable-owning object (a Keras model or layer, a
    #: ``tf.Module``, an optimizer, a variable) other than the one the previous function object closed
    #: over: a new model per cross-validation fold needs its own trace, so these are no retraces to
    #: remove (merged files: the largest); 0 when none, or not recorded
    fresh_captures: int = 0
    _index: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def key(self) -> tuple:
        """``(file, qualname, firstlineno)``, with ``wraps`` last for a wrapped callable (a record of its own)."""
        if self.wraps is not None:
            return (self.file, self.qualname, self.firstlineno, self.wraps)
        return (self.file, self.qualname, self.firstlineno)

    @property
    def retraces(self) -> int:
        """Distinct traces beyond the first (variable-creation traces are not retraces: same signature)."""
        return max(0, len(self.traces) - 1)

    @property
    def total_traces(self) -> int:
        """How many traces happened in all (TensorFlow's ``experimental_get_tracing_count()``, summed
        over the Function objects): repeats of an identical trace and variable-creation traces included."""
        return sum(t.total for t in self.traces)

    @property
    def variable_creation_traces(self) -> int:
        """The traces TensorFlow made again because a first call created variables (see :class:`Trace`)."""
        return sum(t.variable_creation for t in self.traces)

    @property
    def trace_seconds(self) -> float | None:
        """Wall time of every traced call of this function; None when no trace has a time."""
        total = None
        for trace in self.traces:
            total = add_seconds(total, trace.seconds)
        return total

    @property
    def retrace_seconds(self) -> float | None:
        """The part of :attr:`trace_seconds` spent in the distinct traces after the first."""
        if self.trace_seconds is None:
            return None
        total = 0.0
        for trace in self.traces[1:]:
            total = add_seconds(total, trace.seconds)
        return total

    def add_trace(self, trace: Trace) -> None:
        """Add ``trace``, or add its count to an identical one already present."""
        if len(self._index) != len(self.traces):  # traces edited directly: rebuild the index
            self._index = {t.identity(): t for t in self.traces}
        ident = trace.identity()
        existing = self._index.get(ident)
        if existing is not None:
            existing.count += trace.count
            existing.variable_creation += trace.variable_creation
            existing.seconds = add_seconds(existing.seconds, trace.seconds)
            return
        copy = trace.copy()
        self.traces.append(copy)
        self._index[ident] = copy

    def add_call_site(self, site: CallSite) -> None:
        """Add ``site``, or add its count to the same location already present."""
        for existing in self.call_sites:
            if existing.key == site.key:
                existing.count += site.count
                return
        self.call_sites.append(CallSite(site.file, site.line, site.column, site.count))

    def add_proof(self, key: str, proof: Proof) -> None:
        """Store ``proof`` for candidate ``key``; when one is there already, the stronger stays."""
        existing = self.proofs.get(key)
        self.proofs[key] = proof if existing is None else stronger_proof(existing, proof)

    def copy(self, **changes: Any) -> FunctionTraces:
        """A copy with its own traces, call sites and proofs; ``changes`` sets fields anew."""
        copied = dict(params=list(self.params), bound=list(self.bound), traces=[t.copy() for t in self.traces],
                      call_sites=[CallSite(c.file, c.line, c.column, c.count) for c in self.call_sites],
                      proofs=dict(self.proofs))
        return dataclasses.replace(self, **{**copied, **changes})

    def merged(self, other: FunctionTraces) -> FunctionTraces:
        """A new FunctionTraces with ``other`` (same key) folded into a copy of this one."""
        result = FunctionTraces(
            file=self.file,
            qualname=self.qualname,
            firstlineno=self.firstlineno,
            name=self.name or other.name,
            params=list(self.params or other.params),
            calls=self.calls + other.calls,
            traces=[t.copy() for t in self.traces],
            reduce_retracing=self.reduce_retracing or other.reduce_retracing,
            has_input_signature=self.has_input_signature or other.has_input_signature,
            recreated=max(self.recreated, other.recreated),  # per process: merging adds no re-creation
            fresh_captures=max(self.fresh_captures, other.fresh_captures),
            wraps=self.wraps,
            bound=list(self.bound) + [name for name in other.bound if name not in self.bound],
        )
        for trace in other.traces:
            result.add_trace(trace)
        for site in [*self.call_sites, *other.call_sites]:
            result.add_call_site(site)
        for source in (self, other):
            for key, proof in source.proofs.items():
                result.add_proof(key, proof)
        return result

    def to_json(self) -> dict:
        data = {
            "file": self.file,
            "qualname": self.qualname,
            "firstlineno": self.firstlineno,
            "name": self.name,
            "params": list(self.params),
            "calls": self.calls,
            "reduce_retracing": self.reduce_retracing,
            "has_input_signature": self.has_input_signature,
            "traces": [t.to_json() for t in self.traces],
            "call_sites": [site.to_json() for site in self.call_sites],
            "proofs": [proof.to_json(key) for key, proof in self.proofs.items()],
        }
        if self.recreated:
            data["recreated"] = self.recreated
        if self.fresh_captures:
            data["fresh_captures"] = self.fresh_captures
        if self.wraps is not None:
            data["wraps"] = self.wraps
            data["bound"] = list(self.bound)
        return data


def _sort_key(key: tuple) -> tuple:
    file, qualname, line = key[:3]
    return (file, line, qualname, *key[3:])


@dataclass
class TraceSet:
    """All recorded tf.functions of one or more trace files, keyed by ``FunctionTraces.key``."""

    functions: dict[tuple, FunctionTraces] = field(default_factory=dict)
    tensorflow_version: str | None = None
    #: where it was recorded (format version 2): ``{"name", "remote", "commit"}``, see
    #: :func:`retrace_fix.traces.project.project_of`; None when not recorded
    project: dict | None = None

    def __iter__(self) -> Iterator[FunctionTraces]:
        """The functions in file order (file, first line, qualname)."""
        for key in sorted(self.functions, key=_sort_key):
            yield self.functions[key]

    def __len__(self) -> int:
        return len(self.functions)

    def add(self, function: FunctionTraces) -> None:
        """Add ``function``, merging it into an existing entry with the same key."""
        existing = self.functions.get(function.key)
        if existing is None:
            self.functions[function.key] = function
        else:
            self.functions[function.key] = existing.merged(function)

    def find(self, file: str, qualname: str | None = None, line: int | None = None,
             wrapped: bool = False) -> list[FunctionTraces]:
        """The recorded functions of ``file`` (relative to the project root) matching qualname/line.

        With both ``qualname`` and ``line``, functions matching both are returned;
        when none does (the file moved lines since recording), the ones matching
        the qualname alone.  With neither, every function of the file.

        Records of wrapped callables (``wraps``: the ``def`` a ``functools.partial`` or a callable
        object calls, which is no tf.function) are left out unless ``wrapped``: every codemod
        finds its tf.function's traces here, and none may edit that ``def`` as one.
        """
        file = normalize_path(file)
        in_file = [f for f in self if f.file == file and (wrapped or f.wraps is None)]
        if qualname is not None and line is not None:
            exact = [f for f in in_file if f.qualname == qualname and f.firstlineno == line]
            return exact or [f for f in in_file if f.qualname == qualname]
        if qualname is not None:
            return [f for f in in_file if f.qualname == qualname]
        if line is not None:
            return [f for f in in_file if f.firstlineno == line]
        return in_file

    def merge(self, other: TraceSet) -> TraceSet:
        """A new TraceSet holding both; same-key functions are merged (calls summed, traces deduped)."""
        result = TraceSet(
            tensorflow_version=self.tensorflow_version or other.tensorflow_version,
            project=self.project or other.project,
        )
        for function in list(self) + list(other):
            result.add(function)
        return result

    def to_json(self) -> dict:
        version = VERSION if any(f.wraps is not None for f in self) else BASE_VERSION
        data: dict = {"format": FORMAT, "version": version, "tensorflow": self.tensorflow_version}
        if self.project is not None:
            data["project"] = dict(self.project)
        data["functions"] = [f.to_json() for f in self]
        return data

    @classmethod
    def from_json(cls, data: Any, source: str = "<memory>") -> TraceSet:
        """Validate ``data`` (a parsed trace file) and build the TraceSet; raises TraceFileError."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TraceFileError(f"{source}: not a retrace-fix trace file")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise TraceFileError(f"{source}: invalid format version {version!r}")
        if version > VERSION:
            raise TraceFileError(
                f"{source}: format version {version} is newer than this retrace-fix supports ({VERSION})"
            )
        checker = _Checker(source)
        tf_version = data.get("tensorflow")
        if tf_version is not None and not isinstance(tf_version, str):
            checker.fail("tensorflow", "expected a string or null")
        functions = data.get("functions")
        if not isinstance(functions, list):
            checker.fail("functions", "expected a list")
        result = cls(tensorflow_version=tf_version, project=checker.project(data.get("project")))
        for index, item in enumerate(functions):
            result.add(checker.function(item, f"functions[{index}]"))
        return result


# ---------------------------------------------------------------------------
# validation


def normalize_path(path: str) -> str:
    """A project-relative path in POSIX form (``./a\\b.py`` -> ``a/b.py``)."""
    return posixpath.normpath(path.replace("\\", "/"))


def _is_absolute(path: str) -> bool:
    return path.startswith("/") or (len(path) > 1 and path[1] == ":") or path.startswith("\\")


class _Checker:
    """Structural validation with messages that point into the file (``functions[2].traces[0]``)."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, message: str):
        raise TraceFileError(f"{self.source}: invalid trace file: {where}: {message}")

    def field(self, obj: dict, name: str, types: type | tuple, where: str, default: Any = ...) -> Any:
        if name not in obj:
            if default is ...:
                self.fail(where, f"missing {name!r}")
            return default
        value = obj[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
            self.fail(f"{where}.{name}", f"expected {_type_names(types)}")
        return value

    def name(self, obj: dict, key: str, where: str, default: Any = ..., optional: bool = False) -> Any:
        """A string field that names something (path, function, type): no control characters."""
        value = self.field(obj, key, (str, type(None)) if optional else str, where, default)
        if isinstance(value, str) and _CONTROL.search(value):
            self.fail(f"{where}.{key}", f"control character in {value!r}")
        return value

    def text(self, obj: dict, key: str, where: str) -> str | None:
        """An optional one-line message (printed as it is): no line breaks or escape sequences."""
        value = self.field(obj, key, (str, type(None)), where, default=None)
        if isinstance(value, str) and _CONTROL.search(value.replace("\t", " ")):
            self.fail(f"{where}.{key}", f"control character in {value!r}")
        return value

    def located(self, item: Any, where: str) -> str:
        """The normalised ``file`` of an object naming one (a path relative to the project root)."""
        if not isinstance(item, dict):
            self.fail(where, "expected an object")
        file = self.name(item, "file", where)
        if not file or _is_absolute(file) or normalize_path(file).split("/")[0] in ("..", "."):
            self.fail(f"{where}.file", f"expected a path relative to the project root, got {file!r}")
        return normalize_path(file)

    def function(self, item: Any, where: str) -> FunctionTraces:
        file = self.located(item, where)
        params = self.field(item, "params", list, where, default=[])
        if not all(isinstance(p, str) and not _CONTROL.search(p) for p in params):
            self.fail(f"{where}.params", "expected a list of strings")
        calls = self.field(item, "calls", int, where, default=0)
        if calls < 0:
            self.fail(f"{where}.calls", "expected a non-negative integer")
        firstlineno = self.field(item, "firstlineno", int, where)
        if firstlineno < 0:
            self.fail(f"{where}.firstlineno", "expected a non-negative integer")
        function = FunctionTraces(
            file=file,
            qualname=self.name(item, "qualname", where),
            firstlineno=firstlineno,
            name=self.name(item, "name", where, default=""),
            params=list(params),
            calls=calls,
            reduce_retracing=self.field(item, "reduce_retracing", bool, where, default=False),
            has_input_signature=self.field(item, "has_input_signature", bool, where, default=False),
            recreated=self.field(item, "recreated", int, where, default=0),
            wraps=self.name(item, "wraps", where, default=None, optional=True),
            fresh_captures=self.field(item, "fresh_captures", int, where, default=0),
        )
        if function.recreated < 0:
            self.fail(f"{where}.recreated", "expected a non-negative integer")
        if function.fresh_captures < 0:
            self.fail(f"{where}.fresh_captures", "expected a non-negative integer")
        if function.wraps == "":
            self.fail(f"{where}.wraps", "expected a non-empty string or null")
        bound = self.field(item, "bound", list, where, default=[])
        if not all(isinstance(p, str) and not _CONTROL.search(p) for p in bound):
            self.fail(f"{where}.bound", "expected a list of strings")
        function.bound = list(bound)
        traces = self.field(item, "traces", list, where, default=[])
        for index, trace in enumerate(traces):
            function.add_trace(self.trace(trace, f"{where}.traces[{index}]"))
        for index, site in enumerate(self.field(item, "call_sites", list, where, default=[])):
            function.add_call_site(self.call_site(site, f"{where}.call_sites[{index}]"))
        for index, proof in enumerate(self.field(item, "proofs", list, where, default=[])):
            key, value = self.proof(proof, f"{where}.proofs[{index}]")
            function.add_proof(key, value)
        return function

    def project(self, item: Any) -> dict | None:
        if item is None:
            return None
        if not isinstance(item, dict):
            self.fail("project", "expected an object or null")
        name = self.name(item, "name", "project")
        remote = self.name(item, "remote", "project", default=None, optional=True)
        commit = self.name(item, "commit", "project", default=None, optional=True)
        return {"name": name, "remote": remote, "commit": commit}

    def call_site(self, item: Any, where: str) -> CallSite:
        file = self.located(item, where)
        line = self.field(item, "line", int, where)
        column = self.field(item, "column", (int, type(None)), where, default=None)
        count = self.field(item, "count", int, where, default=1)
        if line < 1 or count < 1 or (column is not None and column < 0):
            self.fail(where, "expected a positive line and count and a non-negative column")
        return CallSite(file, line, column, count)

    def proof(self, item: Any, where: str) -> tuple[str, Proof]:
        if not isinstance(item, dict):
            self.fail(where, "expected an object")
        key = self.field(item, "candidate", str, where)
        fix = self.field(item, "fix", str, where)
        if fix not in PROOF_FIXES:
            self.fail(f"{where}.fix", f"expected one of {', '.join(PROOF_FIXES)}, got {fix!r}")
        result = self.field(item, "result", str, where)
        if result not in PROOF_RESULTS:
            self.fail(f"{where}.result", f"expected one of {', '.join(PROOF_RESULTS)}, got {result!r}")
        error = self.text(item, "error", where)
        note = self.text(item, "note", where)
        return key, Proof(fix=fix, result=result, error=error, note=note)

    def trace(self, item: Any, where: str) -> Trace:
        if not isinstance(item, dict):
            self.fail(where, "expected an object")
        args = self.field(item, "args", dict, where)
        for name, value in args.items():
            if _CONTROL.search(name):
                self.fail(f"{where}.args", f"control character in the argument name {name!r}")
            self.value(value, f"{where}.args.{name}")
        count = self.field(item, "count", int, where, default=1)
        if count < 1:
            self.fail(f"{where}.count", "expected a positive integer")
        via = self.field(item, "via", str, where, default="call")
        if via not in VIA_VALUES:
            self.fail(f"{where}.via", f"expected one of {', '.join(VIA_VALUES)}, got {via!r}")
        seconds = self.field(item, "seconds", (int, float), where, default=None)
        if seconds is not None:
            if not math.isfinite(seconds) or seconds < 0:
                self.fail(f"{where}.seconds", "expected a non-negative number")
            seconds = float(seconds)
        nested = self.field(item, "nested", bool, where, default=False)
        variable_creation = self.field(item, "variable_creation", int, where, default=0)
        if variable_creation < 0:
            self.fail(f"{where}.variable_creation", "expected a non-negative integer")
        return Trace(args=args, count=count, nested=nested, via=via, seconds=seconds,
                     variable_creation=variable_creation)

    def value(self, value: Any, where: str) -> None:
        """Check one value descriptor (recursively).

        Every field that the codemods turn into source text (dtypes, shapes,
        ragged ranks, namedtuple class and field names) must have the form the
        recorder writes, so that a hostile file cannot smuggle code into a fix.
        """
        if not isinstance(value, dict):
            self.fail(where, "expected a value descriptor object")
        kind = value.get("kind")
        if kind not in VALUE_KINDS:
            self.fail(where, f"unknown value kind {kind!r}")
        if kind in ("tensor", "ragged", "sparse", "variable"):
            shape = value.get("shape")
            if shape is not None and not (
                isinstance(shape, list)
                and all(d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in shape)
            ):
                self.fail(f"{where}.shape", "expected a list of integers/nulls, or null")
            self.dtype(value, "dtype", where)
            if kind == "ragged":
                rank = value.get("ragged_rank")
                if rank is not None and not (isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0):
                    self.fail(f"{where}.ragged_rank", "expected a non-negative integer")
                if value.get("row_splits_dtype") is not None:
                    self.dtype(value, "row_splits_dtype", where)
        elif kind == "python":
            type_name = self.name(value, "type", where)
            scalar = value.get("value")
            if not isinstance(scalar, (int, float, str, bool, type(None))):
                self.fail(f"{where}.value", "expected a JSON scalar")
            check = _PYTHON_VALUE_CHECKS.get(type_name)
            if check is not None and not check[0](scalar):
                self.fail(f"{where}.value", f"expected {check[1]} for a Python {type_name}, got {_json_type(scalar)}")
        elif kind == "object":
            self.name(value, "type", where)
            self.field(value, "id", int, where)
        elif kind in ("list", "tuple", "per_replica"):
            for index, item in enumerate(self.field(value, "items", list, where)):
                self.value(item, f"{where}[{index}]")
        elif kind in ("dict", "namedtuple"):
            if kind == "namedtuple":
                type_name = self.name(value, "type", where)
                if not all(part.isidentifier() for part in type_name.split(".")):
                    self.fail(f"{where}.type", f"expected a class name, got {type_name!r}")
            for key, item in self.field(value, "items", dict, where).items():
                if kind == "namedtuple" and not (key.isidentifier() and not keyword.iskeyword(key)):
                    self.fail(f"{where}.items", f"expected field names, got {key!r}")
                self.value(item, f"{where}[{key!r}]")
        else:  # other
            self.name(value, "type", where)

    def dtype(self, value: dict, key: str, where: str) -> None:
        dtype = self.field(value, key, str, where)
        if not _DTYPE.fullmatch(dtype):
            self.fail(f"{where}.{key}", f"expected a dtype name such as 'float32', got {dtype!r}")


#: The value a ``python`` descriptor of a built-in type must hold (as the recorder writes it), and its description
_PYTHON_VALUE_CHECKS = {
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "float": (lambda v: (isinstance(v, (int, float)) and not isinstance(v, bool)) or v in ("nan", "inf", "-inf"),
              "a number (or 'nan', 'inf', '-inf')"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "NoneType": (lambda v: v is None, "null"),
}


def _json_type(value: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}.get(type(value), "null")


#: What a TensorFlow dtype name looks like (``float32``, ``qint8``, ``float8_e4m3fn``, ``bfloat16``).
_DTYPE = re.compile(r"[a-z][a-z0-9_]{0,39}")
#: Control characters (C0, DEL, C1): never in a path, function, parameter or type name.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _as_tuple(types: type | tuple) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_names(types: type | tuple) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object",
             type(None): "null"}
    return " or ".join(names.get(t, t.__name__) for t in _as_tuple(types))


# ---------------------------------------------------------------------------
# files


def load_trace_file(path: str) -> TraceSet:
    """Read and validate one trace file; raises TraceFileError with a one-line message.

    Whatever the file holds (see :mod:`retrace_fix.traces.json_limits` for the
    limits: size, nesting, number length, text), the outcome is a TraceSet or
    a TraceFileError, never another exception.
    """
    try:  # a regular file (a FIFO must not hang the run), at most MAX_BYTES
        raw = read_input(str(path), json_limits.MAX_BYTES)
    except InputError as exc:
        message = str(exc)
        if message.startswith("larger than"):
            message = f"larger than {json_limits.MAX_BYTES // (1024 * 1024)} MiB"
        raise TraceFileError(f"{path}: {'' if message.startswith('cannot read') else 'not a usable trace file: '}{message}") from None
    except OSError as exc:
        raise TraceFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, OverflowError) as exc:  # e.g. an embedded NUL in the name
        raise TraceFileError(f"{path!r}: cannot read: {exc}") from None
    try:
        data = loads_limited(raw)
    except JSONLimitError as exc:
        message = str(exc)
        if message.startswith("not UTF-8"):
            raise TraceFileError(f"{path}: not a retrace-fix trace file (not UTF-8 text)") from None
        if message.startswith("invalid JSON"):
            raise TraceFileError(f"{path}: {message}") from None
        raise TraceFileError(f"{path}: not a usable trace file: {message}") from None
    try:
        return TraceSet.from_json(data, source=str(path))
    except TraceFileError:
        raise
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:  # the checker's blind spots
        raise TraceFileError(f"{path}: invalid trace file: {type(exc).__name__}: {one_line(str(exc))}") from None


def load_trace_files(paths: Iterable[str]) -> TraceSet:
    """Load several trace files and merge them (same function: calls summed, traces deduped)."""
    result = TraceSet()
    for path in paths:
        result = result.merge(load_trace_file(path))
    return result


def dumps(trace_set: TraceSet) -> str:
    """The file text: deterministic JSON (functions sorted by file, first line, qualname)."""
    return json.dumps(trace_set.to_json(), indent=2, ensure_ascii=False) + "\n"


def save_trace_file(trace_set: TraceSet, path: str | os.PathLike, make_parents: bool = True) -> None:
    """Write ``trace_set`` to ``path`` atomically (see :mod:`retrace_fix.sources.writes`).

    A new file gets the usual mode of a new file (0666 less the umask), an
    existing one keeps its mode.  Raises OSError (``WriteRefused`` for a path
    inside a version-control directory).
    """
    write_file(os.path.abspath(os.fspath(path)), dumps(trace_set).encode("utf-8"), make_parents=make_parents)
