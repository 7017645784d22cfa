"""``--format sarif``: valid SARIF 2.1.0 (official OASIS schema), rules, levels, locations, fixes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrace_fix.codemods import all_codes, documentation
from retrace_fix.engine.options import RunResult
from retrace_fix.findings import FileResult, Finding, Tier
from retrace_fix.output.sarif import file_changes, sarif_log, to_sarif
from tests.support.cli_runner import run_cli

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
GOLDEN = ROOT / "golden" / "predict-to-call"


def validate(log: dict) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])


def apply_replacements(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements (by charOffset/charLength) to ``text``, last first."""
    unique = {json.dumps(r, sort_keys=True): r for r in replacements}.values()
    ordered = sorted(unique, key=lambda r: r["deletedRegion"]["charOffset"], reverse=True)
    for r in ordered:
        region = r["deletedRegion"]
        start, length = region["charOffset"], region["charLength"]
        text = text[:start] + r.get("insertedContent", {}).get("text", "") + text[start + length :]
    return text


def line_col_to_offset(text: str, line: int, column: int) -> int:
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return starts[line - 1] + column - 1


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    shutil.copyfile(GOLDEN / "keras-sequential-in-tf-function" / "input.py", tmp_path / "pkg" / "fixable.py")
    shutil.copyfile(GOLDEN / "batching-arguments-diagnosed" / "input.py", tmp_path / "pkg" / "diagnosed.py")
    shutil.copyfile(GOLDEN / "non-keras-predict-left-alone" / "input.py", tmp_path / "pkg" / "clean.py")
    (tmp_path / "pkg" / "my file.py").write_text(
        (GOLDEN / "comments-and-formatting-preserved" / "input.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sarif_of_a_check_run_is_valid_and_complete(project):
    code, out, err = run_cli("--check", "--format", "sarif", "pkg").outcome
    assert code == 1  # findings, like --check in text format
    log = json.loads(out)
    validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "retrace-fix"

    # one rule per code, with the documentation as help and the tier as a property
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == list(all_codes())
    for index, rule in enumerate(driver["rules"]):
        assert rule["help"]["text"] == documentation(rule["id"])
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert rule["properties"]["tier"] in ("safe", "unsafe", "diagnostic")
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
    rtf002 = driver["rules"][rule_ids.index("RTF002")]
    assert rtf002["name"] == "predict-to-call"
    assert rtf002["properties"]["tier"] == "safe"

    results = run["results"]
    by_file: dict[str, list[dict]] = {}
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        by_file.setdefault(location["artifactLocation"]["uri"], []).append(result)
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert sorted(by_file) == ["pkg/diagnosed.py", "pkg/fixable.py", "pkg/my%20file.py"]  # clean.py: no results

    fixable = by_file["pkg/fixable.py"]
    assert [(r["ruleId"], r["level"]) for r in fixable] == [("RTF002", "note"), ("RTF002", "note")]
    assert [r["locations"][0]["physicalLocation"]["region"] for r in fixable] == [
        {"startLine": 8, "startColumn": 12},
        {"startLine": 13, "startColumn": 9},
    ]
    assert all(r["properties"] == {"tier": "safe", "fixable": True, "applied": True} for r in fixable)
    assert all(r["message"]["text"].endswith(".") for r in results)

    diagnosed = by_file["pkg/diagnosed.py"]
    assert [r["level"] for r in diagnosed] == ["warning"] * 3
    assert all("fixes" not in r for r in diagnosed)
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in diagnosed] == [9, 10, 11]

    assert run["invocations"] == [{"executionSuccessful": True}]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def test_sarif_fixes_reproduce_the_fixed_files(project):
    code, out, _ = run_cli("--diff", "--format", "sarif", "pkg").outcome
    assert code == 1
    log = json.loads(out)
    validate(log)
    expected = {
        "pkg/fixable.py": GOLDEN / "keras-sequential-in-tf-function" / "expected.py",
        "pkg/my%20file.py": GOLDEN / "comments-and-formatting-preserved" / "expected.py",
    }
    replacements: dict[str, list[dict]] = {}
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                replacements.setdefault(change["artifactLocation"]["uri"], []).extend(change["replacements"])
    assert sorted(replacements) == sorted(expected)
    for uri, path in expected.items():
        original = (project / uri.replace("%20", " ")).read_text(encoding="utf-8")
        for r in replacements[uri]:  # line/column and character offsets agree
            region = r["deletedRegion"]
            assert line_col_to_offset(original, region["startLine"], region["startColumn"]) == region["charOffset"]
            end = line_col_to_offset(original, region["endLine"], region["endColumn"])
            assert end - region["charOffset"] == region["charLength"]
        assert apply_replacements(original, replacements[uri]) == path.read_text(encoding="utf-8")
    # --diff wrote nothing
    assert (project / "pkg" / "fixable.py").read_bytes() == (
        GOLDEN / "keras-sequential-in-tf-function" / "input.py"
    ).read_bytes()


def test_sarif_reports_unparseable_files_as_notifications(project):
    (project / "pkg" / "broken.py").write_text("@tf.function\ndef f(:\n", encoding="utf-8")
    code, out, _ = run_cli("--check", "--format", "sarif", "pkg").outcome
    assert code == 2
    log = json.loads(out)
    validate(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    location = notification["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/broken.py"
    assert location["region"]["startLine"] == 2
    assert "cannot parse" in notification["message"]["text"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]} >= {
        "pkg/fixable.py"
    }


def test_sarif_of_a_clean_run_has_no_results(project):
    code, out, _ = run_cli("--check", "--format", "sarif", "pkg/clean.py").outcome
    assert code == 0
    log = json.loads(out)
    validate(log)
    assert log["runs"][0]["results"] == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(all_codes())


def test_levels_follow_what_is_left_to_do():
    original = "a = 1\nb = 2\n"
    findings = [
        Finding("RTF002", "safe fix", Tier.SAFE, 1, 0, "m.py", applied=True),
        Finding("RTF002", "unsafe fix", Tier.UNSAFE, 2, 0, "m.py", applied=False, reason="may change results"),
        Finding("RTF004", "by hand", Tier.DIAGNOSTIC, 2, 4, "m.py"),
    ]
    run = RunResult(files=[FileResult(path="m.py", original=original, fixed="a = 10\nb = 2\n", findings=findings)])
    log = sarif_log(run)
    validate(log)
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["note", "warning", "warning"]
    assert "fixes" in results[0] and "fixes" not in results[1] and "fixes" not in results[2]
    assert results[1]["message"]["text"] == (
        "unsafe fix. Unsafe fix: may change results. The fix is applied with --unsafe-fixes."
    )
    assert results[1]["properties"]["unsafeReason"] == "may change results"
    (replacement,) = results[0]["fixes"][0]["artifactChanges"][0]["replacements"]
    assert replacement["deletedRegion"] == {
        "startLine": 1, "startColumn": 6, "endLine": 1, "endColumn": 6, "charOffset": 5, "charLength": 0,
    }
    assert replacement["insertedContent"] == {"text": "0"}
    assert results[2]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 5}
    assert json.loads(to_sarif(run)) == log


def test_every_applied_finding_gets_the_changes_near_it():
    original = "import a\n\nx = f(1)\n\n\n\n\ny = f(2)\n"
    fixed = "import a\nimport b\n\nx = g(1)\n\n\n\n\ny = g(2)\n"
    findings = [
        Finding("RTF002", "one", Tier.SAFE, 3, 4, "m.py", applied=True),
        Finding("RTF002", "two", Tier.SAFE, 8, 4, "m.py", applied=True),
    ]
    run = RunResult(files=[FileResult(path="m.py", original=original, fixed=fixed, findings=findings)])
    results = sarif_log(run)["runs"][0]["results"]
    first = results[0]["fixes"][0]["artifactChanges"][0]["replacements"]
    second = results[1]["fixes"][0]["artifactChanges"][0]["replacements"]
    assert [r["insertedContent"]["text"] for r in first] == ["import b\n", "g"]  # the import goes with the nearest
    assert [r["insertedContent"]["text"] for r in second] == ["g"]
    assert apply_replacements(original, first + second) == fixed


_line = st.text(alphabet="ab \té€\t(", max_size=6)
_ending = st.sampled_from(["\n", "\r\n", "\r", ""])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_line, _ending), max_size=8),
    st.lists(st.tuples(_line, _ending), max_size=8),
)
def test_file_changes_rebuild_the_new_text(old_parts, new_parts):
    original = "".join(a + b for a, b in old_parts)
    fixed = "".join(a + b for a, b in new_parts)
    changes = file_changes(original, fixed)
    replacements = [c.replacement() for c in changes]
    assert apply_replacements(original, replacements) == fixed
    if original == fixed:
        assert changes == []
