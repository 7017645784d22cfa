"""The shape of the package: layers, imports pointing down only, no import circle.

Every module of ``retrace_fix`` (with ``retrace_fix.codemods``) belongs to one layer
of :data:`LAYERS`; a module may import from its own layer or the layers below,
never from one above, and no set of modules imports each other in a circle (imports
inside functions and under ``TYPE_CHECKING`` count).  A new module must be given a
layer here: that is where its place in the architecture is decided
(``docs/contributing.md``, "Architecture").
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

#: bottom to top; a module name matches its entry or any entry that is a package prefix of it
LAYERS: list[tuple[str, list[str]]] = [
    ("core types and text", [
        "retrace_fix", "retrace_fix.findings", "retrace_fix.rules", "retrace_fix.linemap", "retrace_fix.wording",
        "retrace_fix.node_text", "retrace_fix.cst_tree", "retrace_fix.docstring_markdown",
        "retrace_fix.patch.diffs", "retrace_fix.patch.hunk_search", "retrace_fix.sources",  # sources: writes, bounded_read
        "retrace_fix.bulk.git", "retrace_fix.notebooks",  # notebooks: notebook
        # imports nothing of the project: the fidelity benchmark's probe loads it by its path
        "retrace_fix.traces.import_hook",
    ]),
    ("source analyses", [
        "retrace_fix.tfnames", "retrace_fix.fastvisit", "retrace_fix.ast_walk", "retrace_fix.tf_functions",
        "retrace_fix.partial_parse", "retrace_fix.positions",
        "retrace_fix.analysis",
        "retrace_fix.config", "retrace_fix.sources.discovery", "retrace_fix.sources.ignore_patterns", "retrace_fix.bulk.git_sources", "retrace_fix.bulk.roots",
    ]),
    ("codemods and traces", ["retrace_fix.codemods", "retrace_fix.traces"]),
    ("engine", ["retrace_fix.engine"]),
    ("runs and their outputs", [
        "retrace_fix.fix_request", "retrace_fix.output", "retrace_fix.patch",  # patch: all but diffs, hunk_search
        "retrace_fix.bulk", "retrace_fix.bench",
        "retrace_fix.sources.stdin",
        "retrace_fix.verify",
    ]),
    ("commands", ["retrace_fix.commands", "retrace_fix.scaffold", "retrace_fix.notebooks.ipython"]),
    ("command line", ["retrace_fix.cli", "retrace_fix.__main__"]),
]


def modules() -> dict[str, Path]:
    found = {}
    for base, package in ((ROOT / "retrace_fix", "retrace_fix"), (ROOT / "codemods", "retrace_fix.codemods")):
        for path in base.rglob("*.py"):
            if "__pycache__" in path.parts or path.name == "sitecustomize.py":
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            if name.startswith("retrace_fix.codemods") and package == "retrace_fix":
                continue  # the link to codemods/ some checkouts have
            found[name] = path
    return found


MODULES = modules()


def layer_of(name: str) -> int:
    best = None
    for index, (_, names) in enumerate(LAYERS):
        for entry in names:
            if name == entry or (name.startswith(entry + ".") and entry != "retrace_fix"):
                if best is None or len(entry) > best[1]:
                    best = (index, len(entry))
    assert best is not None, f"{name}: give it a layer in tests/test_architecture.py"
    return best[0]


@functools.cache
def import_statements(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """Every ``import`` and ``from ... import`` statement of the file, wherever in it (one parse
    and walk per file for all the module's tests)."""
    return tuple(node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, (ast.Import, ast.ImportFrom)))


def imports(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports, wherever in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in import_statements(path):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's project imports (read on first use, not while every xdist worker collects)."""
    return {name: imports(name, path) for name, path in MODULES.items()}


def test_every_module_has_a_layer_and_imports_point_down():
    upward = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in sorted(graph().items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(name) and not name.startswith(target + ".")
    ]
    assert upward == []


def test_no_import_circle():
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(name: str) -> None:  # Tarjan's strongly connected components
        index[name] = low[name] = counter[0]
        counter[0] += 1
        stack.append(name)
        on_stack.add(name)
        for target in graph()[name]:
            if target.startswith(name + ".") or name.startswith(target + "."):
                continue  # a package and its own modules
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == name:
                    break
            if len(members) > 1:
                circles.append(sorted(members))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for name in sorted(graph()):
        if name not in index:
            visit(name)
    assert circles == []


def test_commands_do_not_import_each_other():
    commands = {name for name in MODULES if name.startswith("retrace_fix.commands.")}
    crossing = [(name, target) for name in sorted(commands) for target in sorted(graph()[name] & commands)]
    assert crossing == []


def test_public_codemod_modules_do_not_import_each_other():
    """Each rule's module (a public module of codemods/, as ``retrace_fix.codemods`` discovers them)
    stands alone; what two rules share lives in a private ``_`` module."""
    public = {
        name for name in MODULES
        if name.startswith("retrace_fix.codemods.") and not name.rpartition(".")[2].startswith("_")
    }
    assert len(public) >= 10, sorted(public)
    crossing = [(name, target) for name in sorted(public) for target in sorted(graph()[name] & public)]
    assert crossing == []


def test_the_rewriter_never_imports_tensorflow():
    for name, path in MODULES.items():
        if layer_of(name) > layer_of("retrace_fix.engine") or name.startswith("retrace_fix.traces"):
            continue
        for node in import_statements(path):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            assert not any(n.split(".")[0] in ("tensorflow", "keras", "tf_keras") for n in names), name


def test_starting_the_command_line_stays_light():
    env = {k: v for k, v in os.environ.items() if not k.startswith("RETRACE_FIX")}
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, retrace_fix.cli; print(sorted(m for m in ('libcst', 'tensorflow') if m in sys.modules))"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert probe.stdout == "[]\n", probe.stderr


def test_every_package_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    packages = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    packages.add("retrace_fix.traces._sitecustomize")  # sitecustomize.py, put on the recorded program's path
    assert set(config["packages"]) == packages
    assert config["package-dir"] == {"retrace_fix.codemods": "codemods"}
