"""retrace_fix.positions: one statement at a time, exactly LibCST's ``PositionProvider``.

Every node below a top-level statement (what :func:`push_children` reaches) of every golden
input and expectation, of layouts built to trip the line arithmetic, and of generated
programs, gets the position LibCST's full run gives, without that run; where the text does
not fit (it does not compile, a node below a token field) the answer is LibCST's run.
"""

from __future__ import annotations

from typing import Mapping

import libcst as cst
import pytest
from hypothesis import given
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from retrace_fix.fastvisit import push_children
from retrace_fix import positions as positions_module
from retrace_fix.positions import StatementPositions
from tests.support.golden import GOLDEN_ROOT
from tests.engine.test_fuzz import SETTINGS, tf_programs

SOURCES = sorted(p for p in GOLDEN_ROOT.glob("*/*/*.py") if p.name in ("input.py", "expected.py"))

LAYOUTS = {
    "header comments and blank lines": "#!/usr/bin/env python\n# a comment\n\n\nimport tensorflow as tf\n\n\n# about f\n@tf.function\ndef f(x):\n    return x\n",
    "decorators with lines between": "import tensorflow as tf\n\n# before\n@tf.function(\n    reduce_retracing=True,\n)\n\n# between\n@other\n\ndef f(x):\n    return x\n",
    "semicolons": "import tensorflow as tf; import numpy as np\na = 1; b = 2;\nf = tf.function(lambda x: x); g = 3\n",
    "windows line ends": "import tensorflow as tf\r\n\r\n@tf.function\r\ndef f(x):\r\n    return x\r\n\r\nf(1)\r\n",
    "old mac line ends": "import tensorflow as tf\r\r@tf.function\rdef f(x):\r    return x\r",
    "mixed line ends": "import tensorflow as tf\n\r\n@tf.function\rdef f(x):\r\n    return x\nf(1)",
    "continuations": "import tensorflow as tf\nx = 1 + \\\n    2\n@tf.function\ndef f(x):\n    return x + \\\n        1\ny = (1,\n     2)\n",
    "form feed and tabs": "import tensorflow as tf\n\x0c\n@tf.function\ndef f(x):\n\treturn x\n\x0c\nclass A:\n\tdef g(self):\n\t\treturn 1\n",
    "one-line compounds": "import tensorflow as tf\nif True: a = 1; b = 2\nfor i in range(3): f(i)\nclass C: pass\n",
    "trailing comments in blocks": "def f():\n    x = 1\n    # trailing\n\n# top\n\nclass A:\n    def g(self):\n        pass\n        # end of g\n    # end of A\n\n\nz = 2  # last\n# file end",
    "no final newline": "import tensorflow as tf\n@tf.function\ndef f(x):\n    return x",
    "async and match": "async def f():\n    async for x in y:\n        await x\nmatch p:\n    case [a, b]:\n        pass\n    case _:\n        pass\n",
    "strings spanning lines": 'x = """\nline\n"""\n@tf.function\ndef f(x):\n    return f"""{x}\n"""\n',
    "only comments": "# nothing\n\n# here\n",
    "empty": "",
}


def nodes_below_statements(module: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack: list = list(reversed(module.body))
    while stack:
        node = stack.pop()
        found.append(node)
        push_children(node, stack)
    return found


def never() -> None:
    raise AssertionError("LibCST's full run was needed")


def parsed_with_positions(source: str) -> tuple[cst.Module, Mapping[cst.CSTNode, CodeRange]]:
    """LibCST's tree of ``source`` and LibCST's own positions of its nodes (the reference)."""
    module = cst.parse_module(source)
    return module, MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def assert_positions_match(source: str, parsed: tuple | None = None) -> None:
    module, expected = parsed or parsed_with_positions(source)
    positions = StatementPositions(module, source, never)
    for node in nodes_below_statements(module):
        assert positions[node] == expected[node], (type(node).__name__, cst.Module(body=[]).code_for_node(node))


def assert_each_position_alone_matches(source: str, samples: int = 12, parsed: tuple | None = None) -> None:
    """Nodes asked first (``samples`` of them, evenly spread: each one's statement generated only up
    to its end), and every node asked in reverse order (the rest generated once, when a node after
    the first one is asked)."""
    module, expected = parsed or parsed_with_positions(source)
    nodes = nodes_below_statements(module)
    positions = StatementPositions(module, source, never)
    for node in nodes[:: max(1, len(nodes) // samples)]:
        positions._done.clear()  # asked first in its statement
        assert positions[node] == expected[node], (type(node).__name__, cst.Module(body=[]).code_for_node(node))
    positions = StatementPositions(module, source, never)
    for node in reversed(nodes):
        assert positions[node] == expected[node], (type(node).__name__, cst.Module(body=[]).code_for_node(node))


@pytest.mark.parametrize("path", SOURCES, ids=[p.relative_to(GOLDEN_ROOT).as_posix() for p in SOURCES])
def test_golden_sources(path):
    source = path.read_text(encoding="utf-8")
    parsed = parsed_with_positions(source)  # one reference for both checks
    assert_positions_match(source, parsed)
    if path.name == "input.py":  # an expected.py is its input.py with a few statements changed
        assert_each_position_alone_matches(source, samples=6, parsed=parsed)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layouts(name):
    parsed = parsed_with_positions(LAYOUTS[name])
    assert_positions_match(LAYOUTS[name], parsed)
    assert_each_position_alone_matches(LAYOUTS[name], parsed=parsed)


@SETTINGS
@given(tf_programs())
def test_generated_programs(source):
    parsed = parsed_with_positions(source)
    assert_positions_match(source, parsed)
    assert_each_position_alone_matches(source, parsed=parsed)


def generated_nodes(monkeypatch) -> list[tuple[object, cst.CSTNode]]:
    """From now on in the test: (code generation state, node) of every node whose position
    :class:`StatementPositions` records, in order (the state class in use patched)."""
    generated: list[tuple[object, cst.CSTNode]] = []
    state_class = positions_module._state_class()
    real = state_class.after_codegen

    def recording(self, node):
        generated.append((self, node))
        return real(self, node)

    monkeypatch.setattr(state_class, "after_codegen", recording)
    return generated


def nodes_per_run(generated: list[tuple[object, cst.CSTNode]]) -> list[int]:
    """How many nodes each code generation run (one state object) of ``generated`` recorded."""
    counts: list[int] = []
    last = None
    for state, _ in generated:
        if state is not last:
            counts.append(0)
            last = state
        counts[-1] += 1
    return counts


def test_a_statement_is_generated_only_up_to_the_node_asked(monkeypatch):
    source = "@tf.function(experimental_relax_shapes=True)\ndef f(x):\n" + "    x = x + 1\n" * 200 + "    return x\n"
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    generated = generated_nodes(monkeypatch)
    positions = StatementPositions(module, source, never)
    keyword = module.body[0].decorators[0].decorator.args[0]
    assert positions[keyword] == expected[keyword]
    counts = nodes_per_run(generated)
    assert len(counts) == 1 and counts[0] < 20  # the decorator's nodes, not the body's
    last = module.body[0].body.body[-1]
    assert positions[last] == expected[last] and len(nodes_per_run(generated)) == 2  # then the whole statement, once
    assert positions[module.body[0].body.body[100]] == expected[module.body[0].body.body[100]]
    assert len(nodes_per_run(generated)) == 2


def test_a_node_at_two_places_gets_libcst_s_position():
    """A codemod may put one node object at two places: LibCST's run records the last; so does this."""
    module = cst.parse_module("x = 1\ny = [a, b]\n")
    name = cst.Name("a")
    statement = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("y"))],
                                                    cst.List([cst.Element(name, comma=cst.Comma()), cst.Element(name)]))])
    shared = module.with_changes(body=[module.body[0], statement])
    source = shared.code
    assert source == "x = 1\ny = [a,a]\n"
    expected = MetadataWrapper(shared, unsafe_skip_copy=True).resolve(PositionProvider)
    assert expected[name].start.column == 7  # the second place
    positions = StatementPositions(shared, source, never)
    assert positions[name] == expected[name]


def counting_full_run(module: cst.Module):
    """LibCST's positions of ``module``, and a stand-in for its full run that counts its calls."""
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    runs: list[int] = []

    def full():
        runs.append(1)
        return expected

    return expected, full, runs


def test_text_that_does_not_compile_gets_libcst_s_run(monkeypatch):
    """LibCST may accept syntax this Python's parser rejects (newer grammar): no CPython tree, no shortcut."""
    source = "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n"
    module = cst.parse_module(source)
    expected, full, runs = counting_full_run(module)

    def rejects(text):
        raise SyntaxError("newer syntax")

    monkeypatch.setattr(positions_module.ast, "parse", rejects)
    positions = StatementPositions(module, source, full)
    for node in nodes_below_statements(module):
        assert positions[node] == expected[node]
    assert runs == [1]


def test_nodes_below_token_fields_get_libcst_s_run():
    source = "a = [1, 2]\nb = 3\n"
    module = cst.parse_module(source)
    expected, full, runs = counting_full_run(module)
    positions = StatementPositions(module, source, full)
    comma = module.body[0].body[0].value.elements[0].comma
    assert positions[module.body[1]] == expected[module.body[1]] and runs == []
    assert positions[comma] == expected[comma] and runs == [1]


class _Rename(cst.CSTTransformer):
    """``x`` -> ``a_longer_name``, as a codemod edits (untouched statements stay the same objects)."""

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value="a_longer_name") if original_node.value == "x" else updated_node


@pytest.mark.parametrize("name", ["header comments and blank lines", "decorators with lines between", "semicolons",
                                  "windows line ends", "continuations", "form feed and tabs", "async and match"])
def test_the_tracked_module_and_its_edited_trees_need_no_cpython_parse(monkeypatch, name):
    """The module being transformed takes its statements' lines from the prefilter's tree, an
    edited tree from where its statements were spliced: CPython parses neither again.  (Each
    case keeps a statement the edit does not change: a tree with none kept is generated whole.)"""
    import ast

    from retrace_fix import cst_tree, fastvisit

    source = LAYOUTS[name]
    module = cst.parse_module(source)
    cst_tree.track_source(module, source, ast.parse(source))
    try:
        monkeypatch.setattr(positions_module, "_first_lines", lambda *a: pytest.fail("parsed again"))
        positions = StatementPositions(module, source, never)
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        assert all(positions[node] == expected[node] for node in nodes_below_statements(module))
        with fastvisit.installed():
            edited = module.visit(_Rename())
        assert edited is not module
        code = cst_tree.module_code(edited)
        assert code == edited.code
        positions = StatementPositions(edited, code, never)
        expected = MetadataWrapper(edited, unsafe_skip_copy=True).resolve(PositionProvider)
        assert all(positions[node] == expected[node] for node in nodes_below_statements(edited))
    finally:
        cst_tree.track_source(None)


def test_the_tracked_module_is_walked_only_as_far_as_the_node_asked():
    import ast

    from retrace_fix import cst_tree

    source = "import tensorflow as tf\n" + "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(50))
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    cst_tree.track_source(module, source, ast.parse(source))
    try:
        positions = StatementPositions(module, source, never)
        target = module.body[2].name
        assert positions[target] == expected[target]
        assert positions._walked == 3
        last = module.body[-1].body.body[0]
        assert positions[last] == expected[last] and positions._walked == len(module.body)
        assert positions.statement_of(module.body[1]) == 1
    finally:
        cst_tree.track_source(None)
    untracked = StatementPositions(module, source, never)
    assert untracked[target] == expected[target] and untracked._walked == len(module.body)  # any other tree: whole


def test_a_statement_of_a_tracked_class_is_generated_alone(monkeypatch):
    """A node in a method of a class of the module being transformed: the method is generated from
    its first line (CPython's tree) at the class's indentation, not the class from its top."""
    import ast

    from retrace_fix import cst_tree

    source = ("import tensorflow as tf\n\n\nclass Model(tf.keras.Model):\n    '''Doc.'''\n\n"
              + "".join(f"    # method {i}\n    @tf.function(experimental_relax_shapes=True)\n    def m{i}(self, x):\n"
                        f"        if x:\n            return x + {i}  # {i}\n        return x\n\n" for i in range(30))
              + "    n = [1,\n         2]\n\n\nprint(Model)\n")
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    cst_tree.track_source(module, source, ast.parse(source))
    try:
        states = generated_nodes(monkeypatch)
        positions = StatementPositions(module, source, never)
        method = module.body[1].body.body[-2]
        target = method.body.body[0].body.body[0].body[0].value  # x + 29, in the last method
        assert positions[target] == expected[target]
        assert len(states) < 150  # the method up to it: not the 29 methods before it (2,000 nodes)
        for node in reversed(nodes_below_statements(module)):
            assert positions[node] == expected[node], type(node).__name__
    finally:
        cst_tree.track_source(None)


def test_a_statement_of_a_tracked_def_is_generated_alone(monkeypatch):
    import ast

    from retrace_fix import cst_tree

    source = ("import tensorflow as tf\n\n\nasync def train(data):\n    \"\"\"Doc.\"\"\"\n"
              + "".join(f"    # step {i}\n    for x in data:\n        y = x * {i}\n" for i in range(40))
              + "    return y\n\n\ntrain([])\n")
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    states = generated_nodes(monkeypatch)
    cst_tree.track_source(module, source, ast.parse(source))
    try:
        positions = StatementPositions(module, source, never)
        target = module.body[1].body.body[-1].body[0].value  # y, returned
        assert positions[target] == expected[target] and 0 < len(states) < 20
        for node in nodes_below_statements(module):
            assert positions[node] == expected[node], type(node).__name__
    finally:
        cst_tree.track_source(None)


def test_the_fast_code_generation_state_is_taken_only_for_the_known_libcst_methods(monkeypatch):
    """This LibCST's position-tracking methods are the ones ``_FastPartialState`` writes out; where
    they are not (another LibCST), LibCST's own state generates the statements: the same positions."""
    assert positions_module._libcst_state_is_known()
    assert positions_module._state_class() is positions_module._FastPartialState
    monkeypatch.setattr(positions_module, "_libcst_state_is_known", lambda: False)
    assert positions_module._state_class() is positions_module._PartialState
    for name in ("decorators with lines between", "continuations", "strings spanning lines"):
        assert_each_position_alone_matches(LAYOUTS[name])
