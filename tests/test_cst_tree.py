"""The small reads of a LibCST tree in retrace_fix.cst_tree."""

from __future__ import annotations

import libcst as cst

from retrace_fix.cst_tree import find_nodes, method_call_on, node_ids, parent_map, stored_targets, target_names
from retrace_fix.node_text import code_of


def _statement(code: str) -> cst.BaseStatement:
    return cst.parse_module(code).body[0]


def test_stored_targets_take_tuples_apart_and_keep_attributes_and_subscripts():
    assign = _statement("a, (b.c, *d[0]) = e = f\n").body[0]
    assert [code_of(t) for t in stored_targets(assign)] == ["a", "b.c", "d[0]", "e"]
    assert [code_of(t) for t in stored_targets(_statement("x.y += 1\n").body[0])] == ["x.y"]
    assert [code_of(t) for t in stored_targets(_statement("z: int = 0\n").body[0])] == ["z"]
    assert stored_targets(_statement("f(x)\n").body[0]) == []
    assert target_names(assign.targets[0].target) == ["a"]  # attributes and subscripts bind no name


def test_find_nodes_in_source_order_skipping_nested_scopes_but_not_the_root():
    function = _statement(
        "def f(xs):\n"
        "    for a in xs:\n"
        "        pass\n"
        "    g = lambda: [1 for b in xs]\n"
        "    def inner():\n"
        "        for c in xs:\n"
        "            pass\n"
        "    for d in xs:\n"
        "        pass\n"
    )
    loops = find_nodes(function, lambda n: isinstance(n, cst.For), skip=(cst.FunctionDef, cst.Lambda))
    assert [code_of(loop.target) for loop in loops] == ["a", "d"]
    every = find_nodes(function, lambda n: isinstance(n, (cst.For, cst.CompFor)))
    assert [code_of(node.target) for node in every] == ["a", "b", "c", "d"]


def test_method_call_on_names_the_receiver_and_the_methods():
    call = cst.parse_expression("model.fit(x)")
    assert method_call_on(call, "model", {"fit", "train_on_batch"})
    assert not method_call_on(call, "other", {"fit"})
    assert not method_call_on(call, "model", {"predict"})
    assert not method_call_on(cst.parse_expression("self.model.fit(x)"), "model", {"fit"})


def test_node_ids_and_parent_map_cover_every_node_below():
    expr = cst.parse_expression("f(a, b + 1)")
    ids = node_ids(expr)
    parents = parent_map(expr)
    assert id(expr) in ids and id(expr) not in parents
    assert set(parents) == ids - {id(expr)}
    assert node_ids(None) == set()


def test_module_code_is_libcsts_code_and_remembers_the_last_module():
    from pathlib import Path

    from retrace_fix.cst_tree import module_code, statement_codes

    texts = ["", "x = 1", "# only a comment\n", "\n\n# header\nimport a\n\nclass C:\n    def f(self):\n        pass\n# footer\n",
             "if x:\r\n    y = 1\r\nelse:\r\n    y = 2\r\n", "def f():\n\treturn 1\n\n\n\n", "x = 1 \\\n  + 2\n\f\n"]
    texts += [p.read_text() for p in sorted(Path(__file__).resolve().parent.parent.glob("golden/*/*/input.py"))[:40]]
    for text in texts:
        module = cst.parse_module(text)
        assert module_code(module) == module.code == text
    module = cst.parse_module("import a\nx = 1\n")
    module_code(module)
    codes = statement_codes(module)
    assert [codes[id(node)] for node in module.body] == ["import a\n", "x = 1\n"]
    assert statement_codes(cst.parse_module("import a\nx = 1\n")) is None  # another module, equal or not


def test_a_tracked_modules_layout_cuts_its_text_where_libcst_generates_each_statement():
    """The cuts CPython's tree gives (:func:`retrace_fix.cst_tree.known_layout`) are LibCST's, statement by statement."""
    import ast
    from pathlib import Path

    from retrace_fix.cst_tree import known_layout, track_source

    texts = ["\n\n# header\nimport a\n\nclass C:\n    def f(self):\n        pass\n# footer\n\n",
             "if x:\r\n    y = 1\r\nelse:\r\n    y = 2\r\n", "x = 1 \\\n  + 2\n\f\n", "@d\n\n# c\n@e\ndef f(): pass\n"]
    texts += [p.read_text() for p in sorted(Path(__file__).resolve().parent.parent.glob("golden/*/*/input.py"))[:60]]
    laid_out = 0
    try:
        for text in texts:
            module = cst.parse_module(text)
            track_source(module, text, ast.parse(text))
            layout = known_layout(module)
            if layout is None:
                assert not text.endswith("\n")
                continue
            laid_out += 1
            nodes = (*module.header, *module.body, *module.footer)
            assert [layout.span(i) for i in range(len(nodes))] == [module.code_for_node(n) for n in nodes]
    finally:
        track_source(None)
    assert laid_out >= len(texts) - 5
