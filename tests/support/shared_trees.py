"""Engine runs of one text that share its trees: :func:`sharing`.

Tests that run the engine on one text several times (partial parsing on and off, several option
sets, one codemod at a time) have LibCST and CPython parse the text once, the prefilter read
CPython's tree once (:class:`~retrace_fix.partial_parse.Outline`) and the codemods build their
:class:`~retrace_fix.analysis.ModuleAnalysis` of a tree once.  This is sound because the engine's
results do not depend on which parse of a text it reads: a tree is never changed (an edit makes a
new one), and an analysis holds facts of its tree and texts alone, worked out lazily (its tables,
scopes and positions); the one field a codemod sets, ``origin_line``, every codemod sets before it
reads anything (``codemods/_base.py``).  An edited tree is a new object: it gets an analysis of its
own.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import libcst as cst
import pytest

from retrace_fix.analysis import ModuleAnalysis
from retrace_fix.engine import prefilter


@contextlib.contextmanager
def sharing(shared: dict) -> Iterator[None]:
    """Within the block, the engine's parses, outlines and analyses of a text come from ``shared``
    (``{key: LibCST's tree of a text, CPython's verdict and tree of it, the prefilter's outline of
    it, or the analysis of a LibCST tree}``) and are stored there when new.  The same ``shared``
    given to several blocks shares across them; the trees live as long as it does."""
    parse, check, outline = cst.parse_module, prefilter.cpython_check, prefilter.Outline
    build = ModuleAnalysis.__dict__["build"].__func__

    def parse_once(text, *args, **kwargs):
        if args or kwargs or not isinstance(text, str):
            return parse(text, *args, **kwargs)
        if ("libcst", text) not in shared:
            shared["libcst", text] = parse(text)
        return shared["libcst", text]

    def check_once(text, *args, **kwargs):
        key = ("cpython", text, args, tuple(sorted(kwargs.items())))
        if key not in shared:
            shared[key] = check(text, *args, **kwargs)
        return shared[key]

    def outline_once(text, tree):
        key = ("outline", text, id(tree))
        if key not in shared or shared[key].tree is not tree:
            shared[key] = outline(text, tree)
        return shared[key]

    def analysis_once(cls, module, source_text=None, module_text=None):
        key = ("analysis", id(module), source_text, module_text)
        if key not in shared or shared[key].module is not module:
            shared[key] = build(cls, module, source_text, module_text)
        return shared[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cst, "parse_module", parse_once)
        patch.setattr(prefilter, "cpython_check", check_once)
        patch.setattr(prefilter, "Outline", outline_once)
        patch.setattr(ModuleAnalysis, "build", classmethod(analysis_once))
        yield
