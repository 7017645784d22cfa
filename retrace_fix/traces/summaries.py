"""Recorded values across traces: specs, per-parameter summaries, parameters as written.

Pure Python: no TensorFlow, no LibCST.  The base of the trace-driven fixes:
:mod:`retrace_fix.traces.signature_candidates` (the candidate fixes the recorder proves and
the fixer looks up) and :mod:`retrace_fix.traces.generalize` (the fixer's
decision) both build on it.

* :func:`summarize` combines the value descriptors one parameter had in every
  trace (``docs/trace-format.md``) into a :class:`ValueSummary`: what varied
  (shape, rank, dtype, Python value, object identity, container structure),
  the spec a signature would give it, what keeps it out of a signature;
* :class:`TensorSpecInfo` / :class:`ContainerSpec` and :func:`render_spec`
  are the specs and their source text;
* :class:`ParamInfo` is a parameter as the ``def`` spells it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Union

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
TENSOR_KINDS = ("tensor", "ragged", "sparse")
_MAX_LISTED = 4



class _NoLiteral:
    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "<no literal>"


#: ``ParamInfo.default`` when the default is not a plain literal
NO_LITERAL: Any = _NoLiteral()


# ---------------------------------------------------------------------------
# specs


@dataclass(frozen=True)
class TensorSpecInfo:
    """``tf.TensorSpec`` / ``tf.RaggedTensorSpec`` / ``tf.SparseTensorSpec``."""

    kind: str  # tensor | ragged | sparse
    shape: tuple | None  # None: unknown rank
    dtype: str
    ragged_rank: int | None = None
    row_splits_dtype: str | None = None


@dataclass(frozen=True)
class ContainerSpec:
    """A nested structure of specs, with the container type recorded."""

    kind: str  # list | tuple | dict | namedtuple
    items: tuple  # list/tuple: specs; dict/namedtuple: ((key, spec), ...)
    type_name: str | None = None  # namedtuple class name


Spec = Union[TensorSpecInfo, ContainerSpec]


def render_spec(spec: Spec, tf: str = "tf") -> str:
    """Source text of ``spec`` (``tf.TensorSpec(shape=[None, 50], dtype=tf.float32)``)."""
    if isinstance(spec, TensorSpecInfo):
        shape = "None" if spec.shape is None else "[" + ", ".join("None" if d is None else str(d) for d in spec.shape) + "]"
        if spec.kind == "ragged":
            text = f"{tf}.RaggedTensorSpec(shape={shape}, dtype={tf}.{spec.dtype}, ragged_rank={spec.ragged_rank}"
            if spec.row_splits_dtype and spec.row_splits_dtype != "int64":
                text += f", row_splits_dtype={tf}.{spec.row_splits_dtype}"
            return text + ")"
        if spec.kind == "sparse":
            return f"{tf}.SparseTensorSpec(shape={shape}, dtype={tf}.{spec.dtype})"
        return f"{tf}.TensorSpec(shape={shape}, dtype={tf}.{spec.dtype})"
    if spec.kind == "list":
        return "[" + ", ".join(render_spec(s, tf) for s in spec.items) + "]"
    if spec.kind == "tuple":
        inner = ", ".join(render_spec(s, tf) for s in spec.items)
        return f"({inner},)" if len(spec.items) == 1 else f"({inner})"
    if spec.kind == "dict":
        return "{" + ", ".join(f"{key!r}: {render_spec(s, tf)}" for key, s in spec.items) + "}"
    # namedtuple: Name(field=spec, ...)
    return f"{spec.type_name}(" + ", ".join(f"{key}={render_spec(s, tf)}" for key, s in spec.items) + ")"


def namedtuple_names(spec: Spec) -> set[str]:
    """Class names a rendered spec refers to (namedtuples must be bound where it is used)."""
    if isinstance(spec, TensorSpecInfo):
        return set()
    names: set[str] = {spec.type_name} if spec.kind == "namedtuple" and spec.type_name else set()
    for item in spec.items:
        names |= namedtuple_names(item[1] if spec.kind in ("dict", "namedtuple") else item)
    return names


# ---------------------------------------------------------------------------
# one value across traces


@dataclass
class ValueSummary:
    """What one parameter (or nested element) looked like over all traces."""

    path: str
    kind: str  # a descriptor kind, or "mixed"
    varies: bool = False
    spec: Spec | None = None  # set when every leaf is a tensor of one dtype and rank
    #: variation that is not a change of tensor shape (reduce_retracing cannot remove it)
    problems: list[str] = field(default_factory=list)
    #: why a signature cannot describe it although at most shapes vary
    blockers: list[str] = field(default_factory=list)
    #: top-level tensor: dims whose size varied (or already None); None = every dim (rank unknown/varies)
    varying_dims: frozenset | None = frozenset()
    dim_values: dict = field(default_factory=dict)  # dim -> sizes seen, in first-seen order
    deep_varying: bool = False  # some nested tensor changed shape
    children: list = field(default_factory=list)  # containers: the elements' summaries
    values: list = field(default_factory=list)  # python: distinct values, first-seen order
    types: list = field(default_factory=list)  # python: type names seen
    object_types: list = field(default_factory=list)
    dtype_varies: bool = False  # a tensor whose dtype changed between traces
    rank_varies: bool = False  # a tensor whose rank changed between traces (its spec has ``shape=None``)
    dtypes: list = field(default_factory=list)  # tensors: the dtypes seen, first-seen order

    @property
    def shape_varies(self) -> bool:
        return self.varying_dims is None or bool(self.varying_dims) or self.deep_varying


def _listed(items: Iterable[Any]) -> str:
    items = list(items)
    text = ", ".join(str(i) for i in items[:_MAX_LISTED])
    return text + (", …" if len(items) > _MAX_LISTED else "")


def _unique(values: Iterable[Any]) -> list:
    seen: list = []
    for value in values:
        if not any(_same_value(value, s) for s in seen):
            seen.append(value)
    return seen


def _same_value(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _python_repr(desc: dict) -> str:
    value = desc.get("value")
    if desc.get("type") == "str" and isinstance(value, str):
        return repr(value)
    return "None" if value is None else str(value)


def _kind_name(desc: dict) -> str:
    kind = desc.get("kind")
    if kind == "python":
        return "None" if desc.get("type") == "NoneType" else f"Python {desc.get('type')}"
    if kind == "object":
        return f"object ({desc.get('type')})"
    return str(kind)


def summarize(descs: list[dict], path: str) -> ValueSummary:
    """Combine the descriptors one parameter had in every trace."""
    kinds = _unique(d.get("kind") for d in descs)
    if len(kinds) > 1:
        names = _unique(_kind_name(d) for d in descs)
        if set(kinds) <= set(TENSOR_KINDS) | {"variable"}:
            problem = f"`{path}`: kind varies ({_listed(names)}) — pass one kind of tensor every time"
        elif "python" in kinds and any(d.get("type") == "NoneType" for d in descs):
            problem = f"`{path}`: None in some calls and a {'/'.join(n for n in names if n != 'None')} in others — each gets its own graph"
        else:
            problem = f"`{path}`: kind varies ({_listed(names)})"
        return ValueSummary(path, "mixed", varies=True, problems=[problem])
    kind = kinds[0]
    if kind in TENSOR_KINDS:
        return _summarize_tensor(descs, path, kind)
    if kind == "variable":
        return _summarize_variable(descs, path)
    if kind == "python":
        return _summarize_python(descs, path)
    if kind == "object":
        return _summarize_object(descs, path)
    if kind in ("list", "tuple"):
        return _summarize_sequence(descs, path, kind)
    if kind in ("dict", "namedtuple"):
        return _summarize_mapping(descs, path, kind)
    if kind == "per_replica":
        return _summarize_per_replica(descs, path)
    reprs = _unique(d.get("repr", d.get("type")) for d in descs)
    type_name = descs[0].get("type", "?")
    summary = ValueSummary(path, "other", varies=len(reprs) > 1)
    if summary.varies:
        summary.problems.append(f"`{path}`: argument of type {type_name} changes ({len(reprs)} values)")
    else:
        summary.blockers.append(f"`{path}` is a {type_name}, which a signature cannot describe")
    return summary


def _summarize_tensor(descs: list[dict], path: str, kind: str) -> ValueSummary:
    summary = ValueSummary(path, kind)
    dtypes = _unique(d.get("dtype") for d in descs)
    summary.dtypes = dtypes
    if len(dtypes) > 1:
        summary.varies = True
        summary.dtype_varies = True
        summary.problems.append(f"`{path}`: dtype varies ({_listed(dtypes)}) — cast at the call site")
    if kind == "ragged":
        for key, label in (("ragged_rank", "ragged_rank"), ("row_splits_dtype", "row_splits dtype")):
            values = _unique(d.get(key) for d in descs)
            if len(values) > 1:
                summary.varies = True
                summary.problems.append(f"`{path}`: {label} varies ({_listed(values)})")
    shapes = [d.get("shape") for d in descs]
    ranks = _unique(None if s is None else len(s) for s in shapes)
    if None in ranks or len(ranks) > 1:
        # the rank varied (or was unknown): only an unknown-rank spec, ``shape=None``, accepts every call
        summary.varying_dims = None
        if len(_unique(tuple(s) if s is not None else None for s in shapes)) > 1:
            summary.varies = True
        if len(ranks) > 1:
            summary.rank_varies = True
        generalized = None
    else:
        rank = ranks[0]
        dims: list = []
        varying = set()
        for index in range(rank):
            sizes = _unique(s[index] for s in shapes)
            summary.dim_values[index] = sizes
            if len(sizes) > 1 or None in sizes:
                dims.append(None)
                if len(sizes) > 1:  # a dim that was None in every trace stays None: no change
                    varying.add(index)
            else:
                dims.append(sizes[0])
        summary.varying_dims = frozenset(varying)
        if len(_unique(tuple(s) for s in shapes)) > 1:
            summary.varies = True
        generalized = tuple(dims)
    if summary.problems or summary.blockers:
        return summary
    first = descs[0]
    summary.spec = TensorSpecInfo(
        kind=kind,
        shape=generalized,
        dtype=dtypes[0],
        ragged_rank=first.get("ragged_rank") if kind == "ragged" else None,
        row_splits_dtype=first.get("row_splits_dtype") if kind == "ragged" else None,
    )
    return summary


def _summarize_variable(descs: list[dict], path: str) -> ValueSummary:
    summary = ValueSummary(path, "variable")
    specs = _unique((tuple(d["shape"]) if d.get("shape") is not None else None, d.get("dtype"), d.get("trainable")) for d in descs)
    if len(specs) > 1:
        summary.varies = True
        summary.problems.append(f"`{path}`: tf.Variable of varying shape or dtype")
    summary.blockers.append(
        f"`{path}` is a tf.Variable — a signature would pass a read-only snapshot (assign would fail)"
    )
    return summary


def _summarize_python(descs: list[dict], path: str) -> ValueSummary:
    values = _unique(_python_key(d) for d in descs)
    types = _unique(d.get("type") for d in descs)
    summary = ValueSummary(path, "python", varies=len(values) > 1, types=types)
    summary.values = [_python_value(v) for v in values]
    return summary


def _python_key(desc: dict) -> Any:
    # (type, value): True and 1 are different arguments to us even if TF folds them
    return (desc.get("type"), desc.get("value"))


def _python_value(key: tuple) -> Any:
    return key[1]


def _summarize_object(descs: list[dict], path: str) -> ValueSummary:
    ids = _unique((d.get("type"), d.get("id")) for d in descs)
    types = _unique(d.get("type") for d in descs)
    summary = ValueSummary(path, "object", varies=len(ids) > 1, object_types=types)
    if summary.varies:
        summary.problems.append(
            f"`{path}`: a new {'/'.join(types)} object in {len(ids)} traces — "
            "create it once and reuse it (objects are compared by identity)"
        )
    else:
        summary.blockers.append(
            f"`{path}` is an object ({types[0]}) — a signature can only describe tensors; "
            "close over it instead of passing it"
        )
    return summary


def _summarize_sequence(descs: list[dict], path: str, kind: str) -> ValueSummary:
    lengths = _unique(len(d.get("items", [])) for d in descs)
    summary = ValueSummary(path, kind)
    if len(lengths) > 1:
        summary.varies = True
        summary.problems.append(f"`{path}`: {kind} length varies ({_listed(lengths)})")
        return summary
    children = [summarize([d["items"][i] for d in descs], f"{path}[{i}]") for i in range(lengths[0])]
    _merge_children(summary, children)
    if summary.spec is None and not summary.problems and not summary.blockers:
        summary.spec = ContainerSpec(kind, tuple(c.spec for c in children))
    return summary


def _summarize_per_replica(descs: list[dict], path: str) -> ValueSummary:
    """A distributed value (``PerReplica`` of a ``tf.distribute`` strategy): its components generalise
    like tensors, so ``reduce_retracing`` relaxes them; a signature cannot name its spec in source."""
    summary = _summarize_sequence(descs, path, "tuple")
    summary.kind = "per_replica"
    summary.spec = None
    summary.blockers.append(
        f"`{path}` is a distributed (PerReplica) value — a signature would need the distributed "
        "dataset's element_spec"
    )
    return summary


def _summarize_mapping(descs: list[dict], path: str, kind: str) -> ValueSummary:
    summary = ValueSummary(path, kind)
    types = _unique(d.get("type") for d in descs)
    keys = _unique(tuple(d.get("items", {})) for d in descs)
    if kind == "namedtuple" and len(types) > 1:
        summary.varies = True
        summary.problems.append(f"`{path}`: namedtuple type varies ({_listed(types)})")
        return summary
    if len(keys) > 1:
        summary.varies = True
        summary.problems.append(f"`{path}`: {kind} keys vary")
        return summary
    order = list(keys[0])
    if kind == "dict" and any(re.fullmatch(r"-?\d+(\.\d*)?|True|False|None", key) for key in order):
        # the trace file keeps dict keys as text: 0 and "0" look the same
        summary.blockers.append(f"`{path}`: dict keys that are not strings cannot be written back exactly")
    children = [summarize([d["items"][k] for d in descs], f"{path}[{k!r}]" if kind == "dict" else f"{path}.{k}") for k in order]
    _merge_children(summary, children)
    if summary.spec is None and not summary.problems and not summary.blockers:
        summary.spec = ContainerSpec(kind, tuple(zip(order, (c.spec for c in children))), types[0] if kind == "namedtuple" else None)
    return summary


def _merge_children(summary: ValueSummary, children: list[ValueSummary]) -> None:
    summary.children = children
    for child in children:
        summary.varies = summary.varies or child.varies
        summary.problems.extend(child.problems)
        summary.blockers.extend(child.blockers)
        summary.deep_varying = summary.deep_varying or child.shape_varies
        if child.kind == "python":
            if child.varies:
                type_name = child.types[0] if len(child.types) == 1 else ""
                shown = _listed(_python_repr({"type": type_name, "value": v}) for v in child.values)
                summary.problems.append(f"`{child.path}`: Python value varies ({shown}) inside a container")
            else:
                summary.blockers.append(
                    f"`{child.path}` is a Python value inside a container — a signature can only hold tensors"
                )
    summary.varying_dims = frozenset()


# ---------------------------------------------------------------------------
# parameters


@dataclass(frozen=True)
class ParamInfo:
    """One parameter of the ``def``, as written."""

    name: str
    kind: str = "positional"  # positional | keyword_only | var_positional | var_keyword
    has_default: bool = False
    default: Any = NO_LITERAL  # the default's value when it is a plain literal
