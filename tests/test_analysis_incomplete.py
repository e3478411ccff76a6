"""Never silent (issue 22): a plugin whose base header is not found is a TRT004 finding, and every report says
what the run analysed. The fixture (tests/fixtures/unresolved_base) has no CMake and no compile_commands.json, so
nothing puts plugins/common on the include path of plugins/roi; plugins/foo resolves."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from .sarif_schema import validate_sarif
from .test_cli import trtlint

FIXTURE = Path(__file__).parent / "fixtures" / "unresolved_base"

TRT004 = (
    "TRT004", "warning", "plugins/roi/roiPlugin.h", 3, 10,
    "plugin RoiPlugin and creator RoiPluginCreator did not resolve to a TensorRT interface (bases PluginBase, "
    "PluginCreatorBase are unknown), so no rule checks them: #include \"plugin_base.h\" was not found; add its "
    "directory to `include-dirs` or give `compile-commands`",
)
# every finding of the fixture, exactly: the TRT004 above (no TensorRT version is known, so the bases' deprecated
# interfaces are not judged)
EXPECTED = [TRT004]
SUMMARY = "analysed 1 plugin, 1 creator; 1 unit partly (missing: plugin_base.h)"
NO_VERSION = ("no TensorRT version known: TensorRT API deprecations and removals are not judged (TRT207, TRT610); "
              "set tensorrt-version, or pin TensorRT in CMake or requirements")


def _copy(tmp_path: Path) -> Path:
    proj = tmp_path / "unresolved_base"
    shutil.copytree(FIXTURE, proj)
    return proj


def test_text_names_the_include_and_ends_with_what_was_analysed(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--no-cache", "--no-source")
    assert r.returncode == 1, r.stderr
    lines = r.stdout.strip().splitlines()
    head = (f"plugins/roi/roiPlugin.h:3:10: warning[TRT004] analysis-incomplete: {TRT004[5]}")
    assert head in lines
    assert lines[lines.index(head) + 1:lines.index(head) + 4] == [
        "  = related: plugins/roi/roiPlugin.h:5:7: plugin RoiPlugin is defined here",
        "  = related: plugins/roi/roiPlugin.h:12:7: creator RoiPluginCreator is defined here",
        "  = related: plugins/roi/roiPlugin.cpp:7:1: acme::RoiPluginCreator is registered here",
    ]
    assert re.fullmatch(r"Found 1 problem \(0 errors, 1 warning, 0 info\) in 4 files checked \([0-9.]+ s\)\.", lines[-3])
    assert lines[-2] == SUMMARY
    assert lines[-1] == NO_VERSION
    # a warm run takes its findings from the run memo: the summary comes with them
    r = trtlint("check", str(proj), "--no-source")
    r = trtlint("check", str(proj), "--no-source")
    assert r.stdout.strip().splitlines()[-2:] == [SUMMARY, NO_VERSION]


def test_json_has_the_finding_and_the_analysis(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--no-cache", "--format", "json")
    doc = json.loads(r.stdout)
    got = sorted((d["code"], d["severity"], d["location"]["path"], d["location"]["line"], d["location"]["column"], d["message"])
                 for d in doc["diagnostics"])
    assert got == sorted(EXPECTED)
    assert doc["summary"]["analysis"] == {
        "plugins": 1,
        "creators": 1,
        "targets": None,
        "partly_analysed_units": [
            {"unit": "plugins/roi/roiPlugin.cpp",
             "missing_includes": [{"name": "plugin_base.h", "path": "plugins/roi/roiPlugin.h", "line": 3}]},
        ],
        "missing_includes": ["plugin_base.h"],
        "tensorrt_version": {"version": None, "source": "", "reason": "", "others": []},  # none known: see the text line
    }


def test_sarif_notifies_the_partly_analysed_unit(tmp_path):
    proj = _copy(tmp_path)
    r = trtlint("check", str(proj), "--no-cache", "--format", "sarif")
    doc = json.loads(r.stdout)
    validate_sarif(doc)
    run = doc["runs"][0]
    assert [(x["ruleId"], x["message"]["text"]) for x in run["results"] if x["ruleId"] == "TRT004"] == [("TRT004", TRT004[5])]
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is True
    assert inv["properties"]["analysis"] == {"plugins": 1, "creators": 1, "targets": None, "partlyAnalysedUnits": 1,
                                             "missingIncludes": ["plugin_base.h"]}
    (note,) = inv["toolExecutionNotifications"]
    assert note["level"] == "warning" and note["descriptor"] == {"id": "TRT004"}
    assert note["message"]["text"] == ("plugins/roi/roiPlugin.cpp was analysed only partly: not found: plugin_base.h; "
                                       "add the directories to `include-dirs` or give `compile-commands`")
    loc = note["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "plugins/roi/roiPlugin.h" and loc["region"] == {"startLine": 3}


def test_the_setting_named_fixes_it(tmp_path):
    proj = _copy(tmp_path)
    (proj / "trtlint.toml").write_text('include-dirs = ["plugins/common"]\n', encoding="utf-8")
    r = trtlint("check", str(proj), "--no-cache", "--format", "json")
    doc = json.loads(r.stdout)
    assert [d for d in doc["diagnostics"] if d["code"] == "TRT004"] == []
    assert doc["summary"]["analysis"]["plugins"] == 2 and doc["summary"]["analysis"]["partly_analysed_units"] == []


def test_a_registration_in_a_header_two_units_include_is_one_related_location(tmp_path):
    """A creator registered in a header that a .cpp and a .cu unit both include: each unit's parse sees the
    registration, and the finding names it once (as every related location: one place, once)."""
    proj = tmp_path / "proj"
    (proj / "plugins").mkdir(parents=True)
    (proj / "plugins/xPlugin.h").write_text(
        '#pragma once\n#include <NvInferRuntime.h>\n#include "missing_base.h"\n'
        "class XCreator : public CreatorBase\n{\npublic:\n    char const* getPluginName() const noexcept;\n"
        "    void* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept;\n};\n"
        "REGISTER_TENSORRT_PLUGIN(XCreator);\n")
    (proj / "plugins/a.cpp").write_text(
        '#include "xPlugin.h"\nchar const* XCreator::getPluginName() const noexcept { return "X"; }\n')
    (proj / "plugins/b.cu").write_text(
        '#include "xPlugin.h"\nvoid* XCreator::createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept\n'
        "{\n    return nullptr;\n}\n")
    r = trtlint("check", str(proj), "--no-cache", "--no-source", "--select", "TRT004")
    related = [ln for ln in r.stdout.splitlines() if ln.startswith("  = related:")]
    assert related == ["  = related: plugins/xPlugin.h:4:7: creator XCreator is defined here",
                       "  = related: plugins/xPlugin.h:10:1: XCreator is registered here"], r.stdout
