"""Reporter tests: real rich and jsonschema, hand-built diagnostics, a tmp project with real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trtlint.checks.base import Rule
from trtlint.base.diagnostics import Diagnostic, Edit, Fix, Related, Severity
from trtlint.base.facts import Span
from trtlint.report import FORMATS, ReportContext, render
from trtlint.report.github import escape_data, escape_property

from .sarif_schema import validate_sarif

FOO_CPP = """\
#include "foo.h"

namespace foo {

// line 5
// line 6
// line 7
// line 8
// line 9
int before = 0;
PluginCreator* make()
{   return _trt.FooPlugn(x, alpha=a);
}
"""
# line 12 is "{   return _trt.FooPlugn(x, alpha=a);"; "_trt.FooPlugn(x, alpha=a)" starts at col 12 (25 chars)

FOO_H = """\
#pragma once
static const char* kNAME{"FooPlugin"};
"""


class FakeRule(Rule):
    """Flags test things.

    ## What it does
    Checks that tests test.

    ## Why it matters
    Untested code breaks.
    """

    code = "TRT999"
    name = "test-rule"
    family = "core"
    severity = Severity.ERROR
    fixable = True


class FakeInfoRule(Rule):
    """Reports informational test things."""

    code = "TRT998"
    name = "test-info"
    family = "onnx"
    severity = Severity.INFO


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "cpp/plugins/foo").mkdir(parents=True)
    (tmp_path / "cpp/plugins/foo/foo.cpp").write_text(FOO_CPP)
    (tmp_path / "cpp/plugins/foo/foo.h").write_text(FOO_H)
    (tmp_path / "models").mkdir()
    (tmp_path / "models/net.onnx").write_bytes(b"\x08\x07\x12\x00binary\x00onnx")
    return tmp_path


def make_diags() -> list[Diagnostic]:
    main = Diagnostic(
        code="TRT999",
        name="test-rule",
        severity=Severity.ERROR,
        message="ONNX translation emits 'FooPlugn' but no creator registers it; closest: 'FooPlugin'",
        span=Span("cpp/plugins/foo/foo.cpp", 12, 12, 12, 37),
        related=(Related(Span("cpp/plugins/foo/foo.h", 2, 26, 2, 35), "creator registers 'FooPlugin'"),),
        fix=Fix("rename to 'FooPlugin'", (Edit(Span("cpp/plugins/foo/foo.cpp", 12, 17, 12, 24), "FooPlugin"),)),
        symbol="FooPlugn",
        notes=("plugin names are case sensitive",),
    )
    past_eof = Diagnostic(
        code="TRT999",
        name="test-rule",
        severity=Severity.WARNING,
        message="something at line 500, 100% wrong: really",
        span=Span("cpp/plugins/foo/foo.cpp", 500, 3, 500, 9),
    )
    missing = Diagnostic(
        code="TRT999",
        name="test-rule",
        severity=Severity.WARNING,
        message="file is gone",
        span=Span("cpp/gone.cpp", 4, 1, 4, 5),
        related=(Related(Span("cpp/also_gone.h", 1, 1, 1, 2), "declared here"),),
    )
    logical = Diagnostic(
        code="TRT998",
        name="test-info",
        severity=Severity.INFO,
        message="node uses unknown op 'FooPlugn'",
        span=Span("models/net.onnx", 1, 1),
        logical="main_graph/FooPlugn_0",
    )
    return [main, past_eof, missing, logical]


def ctx_for(root: Path, **kw) -> ReportContext:
    kw.setdefault("files_checked", 3)
    kw.setdefault("elapsed", 0.42)
    return ReportContext(root=root, rules=[FakeRule, FakeInfoRule], **kw)


# ------------------------------------------------------------------------------------------------------ text


def test_text_frame_related_summary(project: Path) -> None:
    out = render("text", make_diags(), ctx_for(project))
    lines = out.splitlines()
    header = (
        "cpp/plugins/foo/foo.cpp:12:12: error[TRT999] test-rule: ONNX translation emits 'FooPlugn' "
        "but no creator registers it; closest: 'FooPlugin'"
    )
    assert lines[0] == header
    assert lines[1:7] == [
        "   |",
        "11 | PluginCreator* make()",
        "12 | {   return _trt.FooPlugn(x, alpha=a);",
        "   |            " + "^" * 25,
        "13 | }",
        "   = related: cpp/plugins/foo/foo.h:2:26: creator registers 'FooPlugin'",
    ]
    # the related location's own one-line snippet, with a caret under its range
    assert lines[7] == '     2 | static const char* kNAME{"FooPlugin"};'
    assert lines[8] == "       |" + " " * 26 + "^" * 9
    assert "   = note: plugin names are case sensitive" in lines
    assert "   = help: fix available (unsafe): rename to 'FooPlugin'" in lines
    assert lines[-1] == "Found 4 problems (1 error, 2 warnings, 1 info) in 3 files checked (0.42 s)."
    assert "\x1b" not in out


def test_text_past_eof_missing_file_and_logical(project: Path) -> None:
    out = render("text", make_diags(), ctx_for(project))
    lines = out.splitlines()
    # past EOF: header, no frame
    i = lines.index("cpp/plugins/foo/foo.cpp:500:3: warning[TRT999] test-rule: something at line 500, 100% wrong: really")
    assert lines[i + 1] == ""
    # missing file: header and related, no frame
    j = lines.index("cpp/gone.cpp:4:1: warning[TRT999] test-rule: file is gone")
    assert lines[j + 1] == "  = related: cpp/also_gone.h:1:1: declared here"
    assert lines[j + 2] == ""
    # logical location: path [graph/node], no frame from the binary model
    k = lines.index("models/net.onnx [main_graph/FooPlugn_0]: info[TRT998] test-info: node uses unknown op 'FooPlugn'")
    assert lines[k + 1] == ""


def test_text_no_source_and_color(project: Path) -> None:
    diags = make_diags()
    out = render("text", diags, ctx_for(project, show_source=False))
    assert " | " not in out
    assert "  = related: cpp/plugins/foo/foo.h:2:26: creator registers 'FooPlugin'" in out.splitlines()
    colored = render("text", diags, ctx_for(project, color=True))
    assert "\x1b[" in colored
    plain = re.sub(r"\x1b\[[0-9;]*m", "", colored)
    assert plain == render("text", diags, ctx_for(project))


def test_text_all_passed_and_no_summary(project: Path) -> None:
    assert render("text", [], ctx_for(project, files_checked=7, elapsed=1.234)) == "All checks passed! (7 files, 1.23 s)\n"
    assert render("text", [], ctx_for(project, problems_summary=False)) == ""
    one = render("text", make_diags()[:1], ctx_for(project, files_checked=1))
    assert one.splitlines()[-1] == "Found 1 problem (1 error, 0 warnings, 0 info) in 1 file checked (0.42 s)."


def test_text_tabs_and_multiline_caret(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n\tfoo(bar)\ny = 2\n")
    d = Diagnostic("TRT999", "test-rule", Severity.ERROR, "m", Span("a.py", 2, 2, 3, 3))
    lines = render("text", [d], ctx_for(tmp_path)).splitlines()
    assert lines[3] == "2 |     foo(bar)"
    assert lines[4] == "  |     " + "^" * 8  # first line only, to the end of it


# ------------------------------------------------------------------------------------------------------ json


def test_json(project: Path) -> None:
    diags = make_diags()
    out = render("json", diags, ctx_for(project))
    data = json.loads(out)
    assert list(data) == ["version", "tool", "project", "summary", "diagnostics"]
    assert data["version"] == 1
    assert data["tool"] == {"name": "trtlint", "version": "0.1.0"}
    assert data["project"] == {
        "root": str(project.resolve()),
        "root_reason": "",
        "profile": "",
        "profile_source": "",
        "paths": None,
        "files_selected": None,
        "excluded_by_profile": [],
    }
    assert data["summary"] == {
        "files_checked": 3,
        "findings": 4,
        "by_severity": {"error": 1, "warning": 2, "info": 1},
        "by_rule": {"TRT998": 1, "TRT999": 3},
    }
    assert data["diagnostics"] == [d.to_dict() for d in diags]
    assert data["diagnostics"][0]["fingerprint"] == diags[0].fingerprint
    assert out == render("json", diags, ctx_for(project, elapsed=9.9))  # stable: no timing in the output
    assert out.startswith('{\n  "version": 1,')


def test_json_empty(project: Path) -> None:
    data = json.loads(render("json", [], ctx_for(project)))
    assert data["summary"]["findings"] == 0
    assert data["summary"]["by_severity"] == {"error": 0, "warning": 0, "info": 0}
    assert data["diagnostics"] == []


# ------------------------------------------------------------------------------------------------------ sarif


UNKNOWN_RULE_DIAG = Diagnostic("TRT000", "internal-error", Severity.ERROR, "parse failed", Span("my dir/a b.py", 3, 0, 0, 0))
SARIF_CASES = ("configured-links", "mapped", "empty", "unknown-rule")


def sarif_doc(case: str, project: Path, monkeypatch) -> dict:
    """The SARIF documents the mapping tests below check and the schema test validates (one builder, so the
    mapping asserts never depend on the schema file being present)."""
    if case == "configured-links":
        monkeypatch.setenv("TRTLINT_PROJECT_URL", "https://git.example.internal/tools/trtlint")
        monkeypatch.setenv("TRTLINT_DOCS_URL", "https://git.example.internal/tools/trtlint/-/blob/abc123/docs/rules/")
    else:
        monkeypatch.delenv("TRTLINT_PROJECT_URL", raising=False)
        monkeypatch.delenv("TRTLINT_DOCS_URL", raising=False)
    if case in ("configured-links", "mapped"):
        return json.loads(render("sarif", make_diags(), ctx_for(project)))
    if case == "empty":
        return json.loads(render("sarif", [], ReportContext(root=project, rules=[])))
    assert case == "unknown-rule"
    return json.loads(render("sarif", [UNKNOWN_RULE_DIAG], ctx_for(project)))


@pytest.mark.parametrize("case", SARIF_CASES)
def test_sarif_is_valid_against_the_official_schema(project: Path, monkeypatch, case: str) -> None:
    validate_sarif(sarif_doc(case, project, monkeypatch))


def test_a_missing_sarif_schema_fails_in_ci_and_skips_locally(tmp_path: Path, monkeypatch) -> None:
    from . import sarif_schema

    monkeypatch.setattr(sarif_schema, "SCHEMA_PATH", tmp_path / "absent" / "sarif-schema-2.1.0.json")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="schema not found .*CI must provide it"):
        validate_sarif({})
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="schema not found"):
        validate_sarif({})


def test_sarif_links_only_to_configured_addresses(project: Path, monkeypatch) -> None:
    doc = sarif_doc("configured-links", project, monkeypatch)
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://git.example.internal/tools/trtlint"
    assert driver["rules"][0]["helpUri"] == "https://git.example.internal/tools/trtlint/-/blob/abc123/docs/rules/TRT999.md"
    assert driver["rules"][0]["help"]["text"] == FakeRule.doc()


def test_sarif_mapped(project: Path, monkeypatch) -> None:
    diags = make_diags()
    doc = sarif_doc("mapped", project, monkeypatch)
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "trtlint" and driver["version"] == "0.1.0"
    assert "informationUri" not in driver  # trtlint has no published address: none is invented
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["TRT999", "TRT998"]
    r0 = rules[0]
    assert r0["name"] == "test-rule"
    assert r0["shortDescription"]["text"] == "Flags test things."
    assert r0["fullDescription"]["text"] == "Checks that tests test."
    assert "## Why it matters" in r0["help"]["markdown"] and r0["help"]["text"] == FakeRule.doc()
    assert "helpUri" not in r0  # no docs address configured: the help text is the rule's documentation
    assert r0["defaultConfiguration"]["level"] == "error"
    assert r0["properties"]["tags"] == ["core"]
    assert rules[1]["defaultConfiguration"]["level"] == "note"

    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True

    res = run["results"]
    assert len(res) == 4
    first = res[0]
    assert first["ruleId"] == "TRT999" and rules[first["ruleIndex"]]["id"] == "TRT999"
    assert first["level"] == "error"
    assert first["message"]["text"] == diags[0].message
    phys = first["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "cpp/plugins/foo/foo.cpp"
    assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert phys["region"] == {"startLine": 12, "startColumn": 12, "endLine": 12, "endColumn": 37}
    (rel,) = first["relatedLocations"]
    assert rel["id"] == 0 and rel["message"]["text"] == "creator registers 'FooPlugin'"
    assert rel["physicalLocation"]["artifactLocation"]["uri"] == "cpp/plugins/foo/foo.h"
    assert rel["physicalLocation"]["region"]["startLine"] == 2
    assert first["partialFingerprints"] == {"trtlint/v1": diags[0].fingerprint}
    (fix,) = first["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "cpp/plugins/foo/foo.cpp"
    assert change["replacements"] == [
        {"deletedRegion": {"startLine": 12, "startColumn": 17, "endLine": 12, "endColumn": 24}, "insertedContent": {"text": "FooPlugin"}}
    ]
    assert fix["description"]["text"] == "rename to 'FooPlugin'"
    assert res[1]["level"] == "warning" and "fixes" not in res[1] and "relatedLocations" not in res[1]
    onnx = res[3]
    assert onnx["level"] == "note" and onnx["ruleIndex"] == 1
    assert onnx["locations"][0]["logicalLocations"] == [
        {"name": "FooPlugn_0", "fullyQualifiedName": "main_graph/FooPlugn_0"}
    ]
    assert "region" not in onnx["locations"][0]["physicalLocation"]
    # artifacts and their indexes agree
    arts = [a["location"]["uri"] for a in run["artifacts"]]
    for r in res:
        al = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert arts[al["index"]] == al["uri"]


def test_sarif_empty_and_unknown_rule(project: Path, monkeypatch) -> None:
    doc = sarif_doc("empty", project, monkeypatch)
    assert doc["runs"][0]["results"] == [] and doc["runs"][0]["tool"]["driver"]["rules"] == []
    # a code with no enabled Rule class (e.g. an internal error) still gets a descriptor and a valid ruleIndex
    doc = sarif_doc("unknown-rule", project, monkeypatch)
    run = doc["runs"][0]
    (res,) = run["results"]
    assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "TRT000"
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20dir/a%20b.py"
    assert res["locations"][0]["physicalLocation"]["region"]["startColumn"] == 1


# ------------------------------------------------------------------------------------------------------ github


def test_github(project: Path) -> None:
    diags = make_diags()
    lines = render("github", diags, ctx_for(project)).splitlines()
    assert len(lines) == 4
    assert lines[0] == (
        "::error file=cpp/plugins/foo/foo.cpp,line=12,col=12,endLine=12,endColumn=37,title=TRT999 test-rule::"
        "ONNX translation emits 'FooPlugn' but no creator registers it; closest: 'FooPlugin'"
        "%0Arelated: cpp/plugins/foo/foo.h:2:26: creator registers 'FooPlugin'"
        "%0Anote: plugin names are case sensitive"
        "%0Afix available (unsafe): rename to 'FooPlugin'"
    )
    assert lines[1] == (
        "::warning file=cpp/plugins/foo/foo.cpp,line=500,col=3,endLine=500,endColumn=9,title=TRT999 test-rule::"
        "something at line 500, 100%25 wrong: really"
    )
    assert lines[3] == (
        "::notice file=models/net.onnx,title=TRT998 test-info::[main_graph/FooPlugn_0] node uses unknown op 'FooPlugn'"
    )


def test_github_escaping() -> None:
    assert escape_data("a%b\r\nc:d,e") == "a%25b%0D%0Ac:d,e"
    assert escape_property("a%b\r\nc:d,e") == "a%25b%0D%0Ac%3Ad%2Ce"
    d = Diagnostic("TRT999", "test-rule", Severity.INFO, "50%\nsecond", Span("dir,x/a:b.py", 1, 2, 1, 4))
    out = render("github", [d], ReportContext(root=Path(".")))
    assert out == "::notice file=dir%2Cx/a%3Ab.py,line=1,col=2,endLine=1,endColumn=4,title=TRT999 test-rule::50%25%0Asecond\n"


def test_render_unknown_format(project: Path) -> None:
    assert FORMATS == ("text", "json", "sarif", "github", "gitlab", "junit")
    with pytest.raises(ValueError):
        render("xml", [], ctx_for(project))


# ------------------------------------------------------------------------------------------------------ gitlab


def test_gitlab_code_quality(project: Path) -> None:
    diags = make_diags()
    dup = Diagnostic(**{**diags[1].__dict__, "span": Span("cpp/plugins/foo/foo.cpp", 501, 3, 501, 9)})
    issues = json.loads(render("gitlab", diags + [dup], ctx_for(project)))
    assert len(issues) == 5
    first = issues[0]
    assert first == {
        "type": "issue",
        "check_name": "TRT999",
        "description": "TRT999 test-rule: ONNX translation emits 'FooPlugn' but no creator registers it; closest: 'FooPlugin'",
        "categories": ["Bug Risk"],
        "severity": "major",
        "fingerprint": diags[0].fingerprint,
        "location": {"path": "cpp/plugins/foo/foo.cpp", "lines": {"begin": 12, "end": 12}},
    }
    assert [i["severity"] for i in issues] == ["major", "minor", "minor", "info", "minor"]
    # the fields GitLab requires, and fingerprints unique within the report (the line-independent fingerprint of
    # two identical findings in one file is the same)
    for i in issues:
        assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(i)
        assert i["location"]["lines"]["begin"] >= 1
    assert dup.fingerprint == diags[1].fingerprint
    assert len({i["fingerprint"] for i in issues}) == 5
    assert issues[3]["description"].startswith("TRT998 test-info: [main_graph/FooPlugn_0] ")
    assert json.loads(render("gitlab", [], ctx_for(project))) == []


# ------------------------------------------------------------------------------------------------------ junit


def test_junit(project: Path) -> None:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(render("junit", make_diags(), ctx_for(project)))
    assert root.tag == "testsuites" and root.get("tests") == "4" and root.get("failures") == "4"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["cpp/plugins/foo/foo.cpp", "cpp/gone.cpp", "models/net.onnx"]
    cases = suites["cpp/plugins/foo/foo.cpp"].findall("testcase")
    assert [c.get("name") for c in cases] == [
        "TRT999 test-rule at cpp/plugins/foo/foo.cpp:12:12",
        "TRT999 test-rule at cpp/plugins/foo/foo.cpp:500:3",
    ]
    f = cases[0].find("failure")
    assert f.get("type") == "TRT999" and f.get("message").startswith("ONNX translation emits 'FooPlugn'")
    assert "related: cpp/plugins/foo/foo.h:2:26: creator registers 'FooPlugin'" in f.text
    clean = ET.fromstring(render("junit", [], ctx_for(project)))
    assert clean.get("tests") == "1" and clean.get("failures") == "0"
    (case,) = clean.iter("testcase")
    assert case.find("failure") is None and "3 files checked" in case.get("name")
