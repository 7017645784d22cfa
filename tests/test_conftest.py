"""What ``tests/conftest.py`` changes in every test process: its ``tmp_path`` and the frozen heap."""

from __future__ import annotations

import gc

import pytest

#: the tmp_path of each test below, in the order they ran (a module runs on one worker, in order)
SEEN: list = []


@pytest.mark.parametrize("case", ["first", "second"])
def test_tmp_path_is_new_empty_and_its_own_even_where_test_names_share_their_first_30_characters(
        case, tmp_path, tmp_path_factory):
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []
    assert tmp_path.parent == tmp_path_factory.getbasetemp()  # where pytest's own puts it
    assert tmp_path.name.startswith("test_tmp_path_is_new_empty_and-t")  # the name pytest gives, cut at 30
    assert tmp_path not in SEEN
    SEEN.append(tmp_path)
    (tmp_path / "file").write_text(case)  # the next test's directory must not see it


def test_the_tmp_paths_above_are_kept(tmp_path):
    assert len(SEEN) == 2 and [(path / "file").read_text() for path in SEEN] == ["first", "second"]
    assert tmp_path not in SEEN and list(tmp_path.iterdir()) == []


def test_a_mktemp_of_the_same_name_is_another_directory(tmp_path, tmp_path_factory):
    other = tmp_path_factory.mktemp(tmp_path.name)  # numbered by pytest: <name>0
    assert other != tmp_path and other.is_dir() and list(other.iterdir()) == []


def test_what_collection_built_is_out_of_the_collectors_passes():
    assert gc.get_freeze_count() > 10_000  # the imported modules and the collected tests
    assert gc.isenabled()  # what the tests make is still collected
