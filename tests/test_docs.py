"""The docs site: generated pages are fresh, the CLI reference is `--help`, every code has its page."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from retrace_fix.codemods import all_codes, documentation
from retrace_fix.docstring_markdown import doc_to_markdown, split_sections
from tests.support.cli_runner import run_cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SECTIONS = ["What it does", "Why it retraces", "Example", "Fix safety"]
#: pages of the site whose links this test checks (the others' authors check theirs)
OWN_PAGES = ["index.md", "concepts.md", "user-guide.md", "ci.md", "faq.md", "output-formats.md", "cli.md",
             "codemods/index.md"]


def load_gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", DOCS / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_docs = load_gen_docs()


def test_generated_pages_are_fresh():
    stale = gen_docs.stale_files()
    assert not stale, f"stale docs {stale}: run `python docs/gen_docs.py` and commit the result"


def help_output(args: list[str]) -> str:
    result = run_cli(*args, env={"COLUMNS": "200"})  # click caps the width at 80 columns
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_cli_reference_is_what_help_prints():
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"^## `(retrace-fix[^`]*)`\n\n```text\n(.*?)\n```$", page, re.M | re.S))
    helps = gen_docs.command_helps()
    assert list(blocks) == [command for command, _ in helps]
    for command in blocks:
        args = command.split()[1:] + ["--help"]
        assert blocks[command] == help_output(args).rstrip("\n"), command


def test_cli_reference_lists_every_subcommand():
    import typer

    from retrace_fix.cli import SUBCOMMANDS, app

    group = typer.main.get_command(app)
    names = group.list_commands(group.context_class(group))
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in names:
        assert f"## `retrace-fix {name}`" in page
    assert set(names) <= set(SUBCOMMANDS)


@pytest.mark.parametrize("code", list(all_codes()))
def test_every_code_has_the_four_sections_and_a_page(code):
    title, sections = split_sections(documentation(code))
    assert title == "" or title.startswith(f"{code} "), title
    headings = [heading.rstrip(":") for heading, _ in sections]
    assert headings == SECTIONS, f"{code}: sections {headings}, expected {SECTIONS}"
    assert all(any(line.strip() for line in body) for _, body in sections), f"{code}: empty section"
    page = DOCS / "codemods" / f"{code}.md"
    assert page.exists(), f"{page} missing: run `python docs/gen_docs.py`"
    assert page.read_text(encoding="utf-8").split("\n# ", 1)[1].startswith(f"{code} "), "page title"
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"codemods/{code}.md" in nav


def test_doc_to_markdown():
    doc = (
        "RTF999 example-name.\n\n"
        "What it does\n"
        "    Rewrites ``a.b(x)`` and raises ``RuntimeError: `x` is\n"
        "    bad``.  Also:\n\n"
        "    * one\n"
        "    * two\n\n"
        "Example\n"
        "    Before::\n\n"
        "        @tf.function\n"
        "        def f(x):\n"
        "            return x\n\n"
        "    After::\n\n"
        "        f = 1\n"
    )
    assert doc_to_markdown(doc) == (
        "# RTF999 example-name\n\n"
        "## What it does\n\n"
        "Rewrites `a.b(x)` and raises `` RuntimeError: `x` is bad ``.  Also:\n\n"
        "* one\n"
        "* two\n\n"
        "## Example\n\n"
        "Before:\n\n"
        "```python\n@tf.function\ndef f(x):\n    return x\n```\n\n"
        "After:\n\n"
        "```python\nf = 1\n```\n"
    )


def nav_pages() -> set[str]:
    return set(re.findall(r":\s*([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), re.M))


@pytest.mark.parametrize("page", OWN_PAGES)
def test_links_resolve(page):
    """Relative links point at a docs page (written, or listed in the nav for its author to write) or a file."""
    path = DOCS / page
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    known = nav_pages()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        resolved = (path.parent / target).resolve()
        relative = resolved.relative_to(DOCS.resolve()).as_posix() if resolved.is_relative_to(DOCS.resolve()) else None
        assert resolved.exists() or relative in known, f"{page}: broken link {target}"


def test_readme_points_at_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/index.md" in readme and (DOCS / "index.md").exists()
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for command in ("python3 -m pip install -e . && retrace-fix --diff examples/",
                    "python3 -m pip install -e '.[test]' && python3 -m pytest"):
        assert command in readme and command in index


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:  # run below as `sys.executable -m mkdocs`
        pytest.skip("mkdocs not installed (pip install -e '.[docs]')")
    missing = sorted(p for p in nav_pages() if not (DOCS / p).exists())
    if missing:
        pytest.skip(f"pages listed in mkdocs.yml not written yet: {missing}")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
