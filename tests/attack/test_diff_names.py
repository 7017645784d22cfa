"""File names in ``--diff`` (issue 26, item 6): quoted as git quotes them (``core.quotePath``).

A name holding an escape sequence, a newline, a quote, a backslash or non-ASCII letters
is C-quoted in the ``---``/``+++`` headers: no control byte reaches the terminal, no line
of the diff is forged, and both ``retrace-fix apply`` and ``git apply`` read the name back.
"""

from __future__ import annotations

import subprocess

import pytest

from retrace_fix.patch.parse import parse_patch
from tests.support.cli_runner import run_cli
from tests.bulk.test_run import RELAX, write

NAMES = [
    ("evil\x1b]0;pwned\x07\x1b[2J.py", '"b/evil\\033]0;pwned\\a\\033[2J.py"'),
    ("two\n+++ b/forged.py", '"b/two\\n+++ b/forged.py"'),
    ('q"uote\\back.py', '"b/q\\"uote\\\\back.py"'),
    ("caf\u00e9.py", '"b/caf\\303\\251.py"'),
    ("tab\there.py", '"b/tab\\there.py"'),
]


@pytest.mark.parametrize("name, header", NAMES)
def test_diff_quotes_hostile_names_and_apply_reads_them_back(tmp_path, name, header):
    src = tmp_path / "src"
    write(src / name, RELAX)
    code, out, err = run_cli("--diff", ".", cwd=src).outcome
    assert code == 1, err
    assert "\x1b" not in out and "\x07" not in out
    assert f"+++ {header}\n" in out
    assert out.count("\n+++ ") + out.startswith("+++ ") == 1  # no forged header line
    # retrace-fix apply and git apply both read the quoted name back
    patch = tmp_path / "fix.patch"
    patch.write_text(out)
    assert [p.path for p in parse_patch(out)] == [name]
    if "\\" in name:
        return  # apply refuses a backslash in a path on purpose (docs/robustness.md)
    code, _, err = run_cli("apply", "--root", str(src), str(patch), cwd=tmp_path).outcome
    assert code == 0, err
    assert "experimental_relax_shapes" not in (src / name).read_text()
    write(src / name, RELAX)
    subprocess.run(["git", "apply", "--check", "--unsafe-paths", "--directory=.", str(patch)], cwd=src, check=True,
                   capture_output=True)


def test_finding_and_error_lines_escape_control_characters(tmp_path):
    """The same names in ``--check`` findings and in error lines: escaped, one line each."""
    write(tmp_path / "evil\x1b[2J\n.py", RELAX)
    write(tmp_path / "bad\x1b[31m.py", "x = (\n")
    code, out, err = run_cli("--check", "--check-syntax", ".", cwd=tmp_path).outcome
    assert code in (1, 2)
    assert "\x1b" not in out + err
    assert "evil\\033[2J\\n.py:4:2: RTF004" in out
    assert "error: bad\\033[31m.py:1:5: cannot parse" in err
