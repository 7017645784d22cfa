"""Hunks split and edited by hand (``-i``'s ``s`` and ``e``): exact pieces, read-back rules, joins."""

from __future__ import annotations

import itertools

import pytest

from retrace_fix.patch.diffs import unified_diff
from retrace_fix.patch.hunk_edits import EditError, can_split, edit_buffer, merge_overlapping, parse_edited, split_hunk
from retrace_fix.patch.apply_text import apply_hunks
from retrace_fix.patch.parse import parse_patch

OLD = "".join(f"l{i}\n" for i in range(1, 20))
NEW = OLD.replace("l5\n", "L5\n").replace("l9\n", "L9\nextra\n").replace("l11\n", "")


def only_hunk(old: str, new: str):
    hunks = parse_patch(unified_diff(old, new, "f.py", quoted=True))[0].hunks
    assert len(hunks) == 1
    return hunks[0]


def test_split_gives_one_piece_per_run_of_changes_with_the_lines_around_it():
    pieces = split_hunk(only_hunk(OLD, NEW))
    assert [piece.text() for piece in pieces] == [
        "@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n",
        "@@ -6,5 +6,6 @@\n l6\n l7\n l8\n-l9\n+L9\n+extra\n l10\n",
        "@@ -10,5 +11,4 @@\n l10\n-l11\n l12\n l13\n l14\n",
    ]


def test_a_hunk_with_one_run_of_changes_cannot_be_split():
    hunk = only_hunk(OLD, OLD.replace("l5\n", "L5\n"))
    assert split_hunk(hunk) == [hunk]
    assert not can_split(hunk)


@pytest.mark.parametrize("chosen", [c for n in range(1, 4) for c in itertools.combinations(range(3), n)])
def test_any_choice_of_pieces_applies_exactly_those_changes(chosen):
    pieces = split_hunk(only_hunk(OLD, NEW))
    changes = [("l5\n", "L5\n"), ("l9\n", "L9\nextra\n"), ("l11\n", "")]
    want = OLD
    for index in chosen:
        want = want.replace(*changes[index])
    outcome = apply_hunks(OLD, merge_overlapping([pieces[i] for i in chosen]), allow_offset=False)
    assert outcome.text == want


def test_merge_keeps_a_removal_another_hunk_shows_as_context():
    first, second = split_hunk(only_hunk(OLD, NEW))[:2]
    # the user edited the second piece to also remove l7, a context line of the first
    edited = parse_edited(second.text().replace(" l7\n", "-l7\n"), second)
    outcome = apply_hunks(OLD, merge_overlapping([first, edited]), allow_offset=False)
    assert outcome.text == OLD.replace("l5\n", "L5\n").replace("l7\n", "").replace("l9\n", "L9\nextra\n")


def test_edit_buffer_round_trips_to_the_same_hunk():
    hunk = only_hunk(OLD, NEW)
    again = parse_edited(edit_buffer(hunk), hunk)
    assert (again.header, again.ops) == (hunk.header, hunk.ops)


def test_edited_counts_are_recomputed_and_comments_dropped():
    hunk = only_hunk(OLD, OLD.replace("l5\n", "L5\n"))
    text = edit_buffer(hunk).replace("+L5\n", "+L5\n+# a comment line of the code\n# a note dropped\n+after\n")
    edited = parse_edited(text, hunk)
    assert edited.header == "@@ -2,7 +2,9 @@\n"
    assert apply_hunks(OLD, [edited], allow_offset=False).text == OLD.replace(
        "l5\n", "L5\n# a comment line of the code\nafter\n")


def test_minus_made_context_keeps_the_line():
    hunk = only_hunk(OLD, OLD.replace("l5\n", "L5\n"))
    edited = parse_edited(edit_buffer(hunk).replace("-l5\n", " l5\n"), hunk)
    assert apply_hunks(OLD, [edited], allow_offset=False).text == OLD.replace("l5\n", "l5\nL5\n")


def test_every_line_removed_means_no_edit():
    hunk = only_hunk(OLD, OLD.replace("l5\n", "L5\n"))
    assert parse_edited("# only comments left\n", hunk) is None


def test_a_line_of_unknown_kind_is_an_error_naming_it():
    hunk = only_hunk(OLD, OLD.replace("l5\n", "L5\n"))
    with pytest.raises(EditError, match=r"line 5 starts with none of ' ', '-', '\+', '#': 'l4'"):
        parse_edited(edit_buffer(hunk).replace(" l4\n", "l4\n"), hunk)


def test_an_empty_line_counts_as_an_unchanged_empty_line():
    old = "a\n\nb\n"
    hunk = only_hunk(old, "a\n\nB\n")
    edited = parse_edited(edit_buffer(hunk).replace("\n \n", "\n\n"), hunk)
    assert apply_hunks(old, [edited], allow_offset=False).text == "a\n\nB\n"


def test_no_newline_at_end_of_file_survives_an_edit():
    old, new = "a\nb", "a\nB"
    hunk = only_hunk(old, new)
    edited = parse_edited(edit_buffer(hunk).replace("+B\n", "+BB\n"), hunk)
    assert apply_hunks(old, [edited], allow_offset=False).text == "a\nBB"


def test_crlf_lines_keep_their_endings():
    old = "a\r\nb\r\nc\r\n"
    hunk = only_hunk(old, "a\r\nB\r\nc\r\n")
    edited = parse_edited(edit_buffer(hunk).replace("+B\r\n", "+BB\r\n"), hunk)
    assert apply_hunks(old, [edited], allow_offset=False).text == "a\r\nBB\r\nc\r\n"
