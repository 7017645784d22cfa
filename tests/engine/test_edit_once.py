"""An edited file costs one LibCST parse: the fixed code is proven and checked without more.

:func:`retrace_fix.engine.transform._fixed_code` splices the fixed code from the
file's text where CPython's tree places every statement (the file being transformed,
:func:`retrace_fix.cst_tree.track_source`): only the statements a codemod changed are
generated, each twice (the original, proven to be its text, and the new); else it
proves that LibCST reproduces the file statement by statement, generating every
statement once; where it cannot (no final newline, a lone final carriage return,
rebuilt statements) it compares the whole module as before.  The fixed code of a file
CPython compiles is checked by CPython alone; LibCST judges where CPython refused
the original.
"""

from __future__ import annotations

import libcst as cst
import pytest

from retrace_fix import cst_tree
from retrace_fix.engine import transform
from retrace_fix.engine.options import FileJob, RunOptions
from retrace_fix.engine.process import process_file

RELAX = (
    "import tensorflow as tf\n\n"
    "def unrelated(a):\n    return a\n\n"
    "@tf.function(experimental_relax_shapes=True)\n"
    "def step(x):\n    return x\n\n"
    "# the end\n"
)


class _Rename(cst.CSTTransformer):
    """``a`` -> ``b``, as a codemod edits: the statements it does not touch stay the same objects."""

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value="b") if original_node.value == "a" else updated_node


def _edited(text: str) -> tuple[cst.Module, cst.Module]:
    from retrace_fix import fastvisit

    parsed = cst.parse_module(text)
    with fastvisit.installed():
        return parsed, parsed.visit(_Rename())


def _generated(monkeypatch) -> list[str]:
    """The code of every node generated for ``parsed`` (the original module) or whole modules."""
    made: list[str] = []
    real = cst.Module.code_for_node

    def code_for_node(self, node):
        code = real(self, node)
        made.append(type(node).__name__)
        return code

    monkeypatch.setattr(cst.Module, "code_for_node", code_for_node)
    return made


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_only_the_changed_statements_of_the_original_are_generated(monkeypatch, newline):
    text = ("x = 1\n" * 50 + "def f(a):\n    return a\n" + "y = 2\n" * 50).replace("\n", newline)
    parsed, tree = _edited(text)
    made = _generated(monkeypatch)
    monkeypatch.setattr(transform, "_lost_tail", lambda *a: pytest.fail("the whole module was compared"))
    fixed = transform._fixed_code(parsed, tree, text)
    assert fixed == text.replace("def f(a):", "def f(b):").replace("return a", "return b")
    assert len(made) == 101 + 1  # the edited tree's statements, and the original def alone


@pytest.mark.parametrize("text", [
    "def f(a):\n    return 1",  # no final newline: LibCST drops the module's last newline token
    "def f(a):\n    return 1\r",  # a lone final carriage return, which LibCST loses
    "def f(a):\r\n    return 1\r\n\r",
])
def test_files_the_pieces_cannot_prove_are_compared_whole(text):
    parsed, tree = _edited(text)
    assert transform._code_by_pieces(parsed, tree, text) is None
    fixed = transform._fixed_code(parsed, tree, text)
    assert fixed == text.replace("(a)", "(b)")
    assert fixed[-1] == text[-1]  # the lost "\r" is put back, a missing newline stays missing


def test_a_final_carriage_return_after_a_newline_is_kept():
    text = "def f(a):\n    return a\n\r"
    parsed, tree = _edited(text)
    fixed = transform._fixed_code(parsed, tree, text)
    assert fixed == "def f(b):\n    return b\n\r"


def test_a_text_libcst_does_not_reproduce_is_refused():
    text = "def f(a):\n    return a\n"
    parsed, tree = _edited(text)
    other = text.replace("return", "return ")  # what LibCST would not write back from ``parsed``
    assert transform._code_by_pieces(parsed, tree, other) is None
    assert transform._fixed_code(parsed, tree, other) is None
    assert transform._fixed_code(parsed, tree, text + "x = 1\n") is None  # text beyond the module's code


def test_rebuilt_statements_still_prove_the_round_trip():
    """A transformer that rebuilds every node (no shared statements) costs a full generation, same result."""
    text = "x = a\ndef f(a):\n    return a\n"
    parsed = cst.parse_module(text)
    tree = parsed.visit(_Rename())  # LibCST's own visit: equal copies, not the same objects
    assert transform._fixed_code(parsed, tree, text) == text.replace("a", "b")


@pytest.fixture
def tracked():
    """``track(parsed, text)``: the module being transformed, as the engine tracks it."""
    yield lambda parsed, text: cst_tree.track_source(parsed, text)
    cst_tree.track_source(None)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_tracked_file_generates_only_its_changed_statements(monkeypatch, tracked, newline):
    text = ("# head\n\n" + "x = 1\n" * 50 + "def f(a):\n    return a\n" + "y = 2\n" * 50 + "# foot\n").replace("\n", newline)
    parsed, tree = _edited(text)
    tracked(parsed, text)
    made = _generated(monkeypatch)
    monkeypatch.setattr(transform, "_code_by_pieces", lambda *a: pytest.fail("every statement was generated"))
    fixed = transform._fixed_code(parsed, tree, text)
    assert fixed == text.replace("def f(a):", "def f(b):").replace("return a", "return b")
    assert made == ["FunctionDef", "FunctionDef"]  # the original def (its proof) and the new one


class _RenameKeyword(cst.CSTTransformer):
    """RTF004's edit: the keyword of a decorator's argument, nothing of the body."""

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        keyword = original_node.keyword
        if keyword is not None and keyword.value == "experimental_relax_shapes":
            return updated_node.with_changes(keyword=cst.Name("reduce_retracing"))
        return updated_node


@pytest.mark.parametrize("kind", ["def f(x):", "class C(tf.Module):\n  def f(self, x):"])
def test_a_def_whose_decorator_changed_generates_its_head_only(monkeypatch, tracked, kind):
    from libcst._nodes.base import CSTNode

    from retrace_fix import fastvisit

    body = "".join(f"    x = x + {i}  # step {i}\n" for i in range(100)) + "    return x\n"
    text = f"import tensorflow as tf\n\n# a step\n@tf.function(experimental_relax_shapes=True)\n{kind}\n{body}\nprint(1)\n"
    parsed = cst.parse_module(text)
    with fastvisit.installed():
        tree = parsed.visit(_RenameKeyword())
    assert tree.body[1].body is parsed.body[1].body
    tracked(parsed, text)
    generated: list[str] = []
    real = CSTNode._codegen
    monkeypatch.setattr(CSTNode, "_codegen", lambda self, state, **kw: generated.append(type(self).__name__)
                        or real(self, state, **kw))
    assert transform._fixed_code(parsed, tree, text) == text.replace("experimental_relax_shapes", "reduce_retracing")
    assert "Return" not in generated  # the two heads, none of the body
    assert 0 < len(generated) < 150  # (the body alone is 900 nodes)


CLASS = (
    "import tensorflow as tf\n\n\n"
    "class Model(tf.keras.Model):\n"
    '    """A model."""\n\n'
    "    def __init__(self):\n" + "".join(f"        self.w{i} = {i}  # weight {i}\n" for i in range(60)) + "\n"
    "    # the step\n"
    "    @tf.function(\n        experimental_relax_shapes=True)\n"
    "    def step(self, x):\n" + "".join(f"        x = x + self.w{i}\n" for i in range(60)) + "        return x\n\n"
    "    step_fn = tf.function(lambda x: x, experimental_relax_shapes=True)\n\n"
    "    def other(self):\n        if True:\n            return 1\n"
    "# after the class\n"
    "x = 1\n"
)


def test_a_class_whose_methods_changed_generates_only_what_changed_in_it(monkeypatch, tracked):
    """A method's decorator edited (its head, at the class's indentation) and a statement of the class
    body edited (generated whole, at that indentation): nothing else of the class is generated."""
    from libcst._nodes.base import CSTNode

    from retrace_fix import fastvisit

    parsed = cst.parse_module(CLASS)
    with fastvisit.installed():
        tree = parsed.visit(_RenameKeyword())
    assert tree.body[1] is not parsed.body[1] and tree.body[1].body is not parsed.body[1].body
    tracked(parsed, CLASS)
    generated: list[str] = []
    real = CSTNode._codegen
    monkeypatch.setattr(CSTNode, "_codegen", lambda self, state, **kw: generated.append(type(self).__name__)
                        or real(self, state, **kw))
    assert transform._fixed_code(parsed, tree, CLASS) == CLASS.replace("experimental_relax_shapes", "reduce_retracing")
    assert "Return" not in generated and "AugAssign" not in generated  # no method's body
    assert generated.count("FunctionDef") == 2 and generated.count("Lambda") == 2
    assert len(generated) < 200  # (the class is 1,900 nodes)


def _renamed_and_proven_whole(tracked, text: str, other: str) -> tuple[cst.Module, cst.Module]:
    """RTF004's rename of ``text``'s tree, tracked against ``other`` (not what LibCST writes of the
    parsed tree): no layout, and no fixed code from the splice (the whole module is proven);
    the parsed tree and the renamed one."""
    from retrace_fix import fastvisit

    parsed = cst.parse_module(text)
    with fastvisit.installed():
        tree = parsed.visit(_RenameKeyword())
    tracked(parsed, other)
    assert cst_tree.layout_of(tree) is None
    assert transform._fixed_code(parsed, tree, other) is None
    return parsed, tree


def test_a_method_head_that_is_not_its_text_is_proven_whole(monkeypatch, tracked):
    parsed, tree = _renamed_and_proven_whole(tracked, CLASS, CLASS.replace("    @tf.function(\n", "    @tf.function( \n"))
    tracked(parsed, CLASS.replace("# weight 3\n", "# weight  3\n"))  # in a method no codemod changed:
    assert cst_tree.layout_of(tree).code == CLASS.replace("# weight 3\n", "# weight  3\n").replace(  # the text
        "experimental_relax_shapes", "reduce_retracing")


def test_a_head_that_is_not_its_text_is_proven_whole(tracked):
    text = "@tf.function(experimental_relax_shapes=True)\ndef f(x):\n    return x\n"
    _renamed_and_proven_whole(tracked, text, text.replace("@tf.function(", "@tf.function( "))


def _with_body(module: cst.Module, body: list) -> cst.Module:
    return module.with_changes(body=body)


def test_an_inserted_statement_proves_the_cut_it_goes_into(monkeypatch, tracked):
    text = "import a\n\n# about b\nimport b\nx = 1\n"
    parsed = cst.parse_module(text)
    tracked(parsed, text)
    added = cst.parse_statement("import tensorflow as tf\n")
    tree = _with_body(parsed, [parsed.body[0], added, *parsed.body[1:]])
    made = _generated(monkeypatch)
    assert transform._fixed_code(parsed, tree, text) == "import a\nimport tensorflow as tf\n\n# about b\nimport b\nx = 1\n"
    assert made == ["SimpleStatementLine"] * 3  # both neighbours of the cut, and the new statement
    removed = _with_body(parsed, [parsed.body[0], parsed.body[2]])
    assert transform._fixed_code(parsed, removed, text) == "import a\nx = 1\n"  # the dropped statement, proven


def test_the_statements_no_codemod_changed_are_the_files_text(tracked):
    """A span is compared with LibCST's code only where a codemod changed it: the rest is written back as read."""
    text = "x  =  1\ndef f(a):\n    return a\n"
    parsed, tree = _edited(text)
    read = "x = 1\ndef f(a):\n    return a\n"  # what the engine would track had it read this
    tracked(parsed, read)
    assert transform._fixed_code(parsed, tree, read) == "x = 1\ndef f(b):\n    return b\n"


def test_a_changed_statement_that_is_not_its_text_is_refused(tracked, monkeypatch):
    text = "x = 1\ndef f(a):\n    return a\n"
    parsed, tree = _edited(text)
    other = text.replace("return", "return ")
    tracked(parsed, other)
    assert cst_tree.layout_of(tree) is None
    assert transform._fixed_code(parsed, tree, other) is None  # and the whole comparison refuses it too


def test_reordered_statements_are_proven_whole(tracked, monkeypatch):
    text = "import a\nimport b\n"
    parsed = cst.parse_module(text)
    tracked(parsed, text)
    tree = _with_body(parsed, list(reversed(parsed.body)))
    assert cst_tree.layout_of(tree) is None
    assert transform._fixed_code(parsed, tree, text) == "import b\nimport a\n"


def _run(tmp_path, source: str, options: RunOptions):
    path = tmp_path / "m.py"
    path.write_text(source, newline="")
    return process_file(FileJob(path=path, display="m.py", root=str(tmp_path), relpath="m.py"), options)


def test_an_edited_file_is_parsed_by_libcst_once(tmp_path, monkeypatch):
    parsed: list[str] = []
    real = transform.cst.parse_module
    monkeypatch.setattr(transform.cst, "parse_module", lambda text: parsed.append(text) or real(text))
    monkeypatch.setattr(transform, "_lost_tail", lambda *a: pytest.fail("the whole module was generated"))
    monkeypatch.setattr(transform, "_code_by_pieces", lambda *a: pytest.fail("every statement was generated"))
    result = _run(tmp_path, RELAX, RunOptions())
    assert result.error is None
    assert result.fixed == RELAX.replace("experimental_relax_shapes", "reduce_retracing")
    assert parsed == [RELAX]


def test_fixed_code_that_does_not_compile_is_refused(tmp_path, monkeypatch):
    """The guard still fires: CPython's verdict where the original compiles."""
    monkeypatch.setattr(transform, "_fixed_code", lambda parsed, tree, text: tree.code + "def (:\n")
    result = _run(tmp_path, RELAX, RunOptions())
    assert result.fixed == RELAX and result.findings == []
    assert result.error.startswith("m.py:1: internal error: the fixed code does not compile (line 11: invalid syntax)")
    assert result.error.endswith("; file left unchanged")


def test_libcst_judges_the_fixed_code_where_cpython_refused_the_original(monkeypatch):
    monkeypatch.setattr(transform, "cpython_syntax_problem", lambda text: pytest.fail("CPython asked"))
    assert transform._output_problem("x = 1\n", original_compiles=False) is None
    assert transform._output_problem("def (:\n", original_compiles=False).startswith("does not parse (")


def test_cpython_alone_judges_the_fixed_code_of_a_file_it_compiles(monkeypatch):
    monkeypatch.setattr(transform.cst, "parse_module", lambda text: pytest.fail("LibCST asked"))
    assert transform._output_problem("x = 1\n", original_compiles=True) is None
    problem = transform._output_problem("x = 1\n  y = 2\n", original_compiles=True)
    assert problem == "does not compile (line 2: unexpected indent)"
