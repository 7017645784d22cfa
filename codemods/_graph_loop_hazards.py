"""The calls and statements that behave differently once a Python loop becomes a graph loop.

Tables read by the loop body checker (:mod:`retrace_fix.codemods._loop_safety`)
and :mod:`retrace_fix.codemods._param_safety`: Python side effects (run once per
trace, not once per iteration), container mutators, TensorFlow ops that need a
Python int, ops that change a carried value's shape, and the statements that
block by their kind alone.
"""

from __future__ import annotations

#: calls whose only purpose is a Python side effect (or a value that changes per call)
SIDE_EFFECT_PREFIXES = (
    "builtins.print",
    "builtins.input",
    "builtins.open",
    "builtins.exec",
    "builtins.eval",
    "builtins.setattr",
    "builtins.delattr",
    "builtins.breakpoint",
    "logging.",
    "time.",
    "random.",
    "numpy.random.",
    "datetime.",
    "sys.",
    "os.",
    "warnings.",
    "pdb.",
)

#: container methods that mutate a Python list/dict/set
MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "popitem"}
)

#: TF ops whose arguments must be Python ints (a tensor loop variable breaks them)
TF_NEEDS_PYTHON_INT = frozenset(
    {
        "tensorflow.split",
        "tensorflow.unstack",
        "tensorflow.random.set_seed",
        "tensorflow.autograph.experimental.set_loop_options",
    }
)
PYTHON_INT_KEYWORDS = frozenset({"num", "seed", "name", "num_or_size_splits"})

#: TF ops that change the shape of what they are given / build a shape from their arguments
TF_SHAPE_CHANGING = frozenset(
    {
        "concat", "stack", "expand_dims", "tile", "pad", "repeat", "reshape", "squeeze",
        "zeros", "ones", "fill", "range", "eye", "slice", "broadcast_to", "gather_nd",
        "boolean_mask", "unique", "where",
    }
)

#: statements that block by their kind alone, and why (``{code}``: the statement on one line,
#: ``{header}``: its header)
STATEMENT_BLOCKERS = {
    "Break": "`break` leaves the loop early: a graph loop needs it as a loop-carried flag",
    "Continue": "`continue` skips part of the body: a graph loop needs it as a loop-carried flag",
    "Return": "`{code}` returns from inside the loop",
    "Yield": "`yield` inside the loop",
    "Await": "`await` inside the loop",
    "Raise": "`{code}` raises from inside the loop",
    "Try": "`try` inside the loop: exceptions cannot cross a graph loop",
    "TryStar": "`try` inside the loop: exceptions cannot cross a graph loop",
    "With": "`{header}` enters a context manager inside the loop",
    "Global": "`global` inside the loop body",
    "Nonlocal": "`nonlocal` inside the loop body",
    "Del": "`{code}` deletes a name inside the loop",
    "Import": "an import inside the loop body",
    "ImportFrom": "an import inside the loop body",
    "While": "`{header}` is a nested while loop",
}
