"""Small LibCST edits of a ``tf.function`` spelling: how to spell ``tensorflow`` in a
module, and adding a keyword (``input_signature=...``, ``reduce_retracing=True``)
to ``@tf.function`` or ``tf.function(...)``, one argument per line where the
call is written so.
"""

from __future__ import annotations

import libcst as cst

from retrace_fix.tfnames import BUILTIN_NAMES, ImportTable, canonical


def tf_spelling(table: ImportTable) -> tuple[str | None, bool]:
    """(how to spell ``tensorflow`` in a module, whether ``import`` of it must be added); (None, False)
    when the module imports no TensorFlow and both ``tf`` and ``tensorflow`` are taken."""
    for local, target in sorted(table.aliases.items()):
        if canonical(f"{target}.TensorSpec") == "tensorflow.TensorSpec" and canonical(target) in (
            "tensorflow",
            "tensorflow.compat.v2",
        ):
            return local, False
    for candidate in ("tf", "tensorflow"):
        if candidate not in table.aliases and candidate not in table.rebound and candidate not in BUILTIN_NAMES:
            return candidate, True
    return None, False


def call_arg_indent(expr: cst.BaseExpression) -> str | None:
    """The indentation of the arguments of a call written one argument per line, else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.whitespace_before_args, cst.ParenthesizedWhitespace):
        return expr.whitespace_before_args.last_line.value
    return None


def add_keyword(expr: cst.BaseExpression, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """``tf.function`` → ``tf.function(kw=value)``; ``tf.function(a)`` → ``tf.function(a, kw=value)``.

    A call written one argument per line gets the new argument on its own line,
    before the closing parenthesis; comments stay on the lines they were on.
    """
    new_arg = cst.Arg(
        value=value,
        keyword=cst.Name(keyword),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    if not isinstance(expr, cst.Call):
        return cst.Call(func=expr, args=[new_arg])
    args = list(expr.args)
    if not args:
        return expr.with_changes(args=[new_arg])
    last = args[-1]
    indent = call_arg_indent(expr)
    if isinstance(last.comma, cst.Comma):
        after = last.comma.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace) and indent is not None:
            # `    last=1,  # note\n)` -> `    last=1,  # note\n    kw=value,\n)`
            args[-1] = last.with_changes(
                comma=last.comma.with_changes(whitespace_after=after.with_changes(last_line=cst.SimpleWhitespace(indent)))
            )
            closing = cst.ParenthesizedWhitespace(
                first_line=cst.TrailingWhitespace(), empty_lines=[], indent=after.indent, last_line=after.last_line
            )
            new_arg = new_arg.with_changes(comma=cst.Comma(whitespace_after=closing))
        args.append(new_arg)
    elif indent is not None and isinstance(last.whitespace_after_arg, cst.ParenthesizedWhitespace):
        # `    last=1\n)` -> `    last=1,\n    kw=value\n)`
        before_close = last.whitespace_after_arg
        args[-1] = last.with_changes(
            comma=cst.Comma(
                whitespace_after=cst.ParenthesizedWhitespace(
                    first_line=cst.TrailingWhitespace(), empty_lines=[], indent=before_close.indent,
                    last_line=cst.SimpleWhitespace(indent),
                )
            ),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        args.append(new_arg.with_changes(whitespace_after_arg=before_close))
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(new_arg)
    return expr.with_changes(args=args)
