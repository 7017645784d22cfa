"""retrace_fix.patch.diffs: the one unified diff, with the path quoting chosen by the caller."""

from __future__ import annotations

from retrace_fix.patch.parse import parse_patch
from retrace_fix.patch.diffs import unified_diff

OLD, NEW = "a = 1\nb = 2\n", "a = 1\nb = 3\n"


def test_ordinary_paths_read_the_same_quoted_or_not():
    quoted = unified_diff(OLD, NEW, "pkg/model_v2-x.py", quoted=True)
    assert quoted == unified_diff(OLD, NEW, "pkg/model_v2-x.py", quoted=False)
    assert quoted.splitlines()[:2] == ["--- a/pkg/model_v2-x.py", "+++ b/pkg/model_v2-x.py"]


def test_non_ascii_paths_are_quoted_as_git_quotes_them():
    quoted = unified_diff(OLD, NEW, "pkg/caf\u00e9.py", quoted=True)  # core.quotePath=true, git's default
    assert quoted.splitlines()[:2] == ['--- "a/pkg/caf\\303\\251.py"', '+++ "b/pkg/caf\\303\\251.py"']
    assert [p.path for p in parse_patch(quoted)] == ["pkg/caf\u00e9.py"]


def test_quoted_headers_name_the_file_exactly_for_patch_readers():
    path = 'we"ird\tname.py'
    quoted = unified_diff(OLD, NEW, path, quoted=True)
    assert quoted.splitlines()[:2] == ['--- "a/we\\"ird\\tname.py"', '+++ "b/we\\"ird\\tname.py"']
    assert [p.path for p in parse_patch(quoted)] == [path]
    plain = unified_diff(OLD, NEW, path, quoted=False)
    assert plain.splitlines()[:2] == [f"--- a/{path}", f"+++ b/{path}"]


def test_equal_texts_give_no_diff_and_a_missing_newline_is_marked():
    assert unified_diff(OLD, OLD, "f.py", quoted=True) == ""
    assert unified_diff("x\n", "y", "f.py", quoted=False).endswith("+y\n\\ No newline at end of file\n")
