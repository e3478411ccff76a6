"""The TensorRT release a C++ version test claims to support (issue 24): of an ``||`` the lowest alternative.

Edge-LLM tests ``(NV_TENSORRT_MAJOR >= 10 && NV_TENSORRT_MINOR >= 6) || NV_TENSORRT_MAJOR >= 11``: the code builds
with 10.6 and up, so the floor is 10.6, not 11.0 (which made TRT207/TRT610 report what 11.0 removed to 10.x code).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from trtlint.config.settings import load_settings
from trtlint.frontends.trtversion import evidence
from trtlint.pipeline.run import run

FIXTURE = Path(__file__).parent / "fixtures" / "trt_version_or"


@pytest.mark.parametrize("test, floor", [
    ("(NV_TENSORRT_MAJOR >= 10 && NV_TENSORRT_MINOR >= 6) || NV_TENSORRT_MAJOR >= 11", "10.6"),
    ("NV_TENSORRT_MAJOR == 10 && (NV_TENSORRT_MINOR == 13 || NV_TENSORRT_MINOR == 14)", "10.13"),
    ("NV_TENSORRT_MAJOR >= 10 && NV_TENSORRT_MINOR >= 8", "10.8"),
    ("NV_TENSORRT_MAJOR >= 10 && \\\n    NV_TENSORRT_MINOR >= 3 // continued", "10.3"),
])
def test_floor_of_a_version_test(test, floor):
    got = evidence("src/a.cpp", f"int x;\n#if {test}\n#endif\n".encode())
    assert [(e.version, e.tier, e.line) for e in got] == [(floor, 3, 2)]


def test_or_of_tests_is_judged_at_its_lowest_alternative(tmp_path):
    # canBroadcastInputAcrossBatch is removed in 11.0: judged against the 10.6 floor it is only deprecated
    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    settings = load_settings(root)
    settings.select = ["TRT207"]
    res = run(settings, jobs=1, use_cache=False)
    assert res.analysis["tensorrt_version"]["version"] == "10.6"
    got = sorted((d.span.line, d.severity.value, d.message) for d in res.diagnostics)
    assert res.analysis["tensorrt_version"]["reason"] == (
        "#if (NV_TENSORRT_MAJOR >= 10 && NV_TENSORRT_MINOR >= 6) || NV_TENSORRT_MAJOR >= 11 in plugins/foo.cpp:5 "
        "(floor: the code tests for it)")
    why = "targeting 10.6, inferred from plugins/foo.cpp:5 (floor: the code tests for it)"
    assert got == [
        (9, "warning", f"FooPlugin implements IPluginV2Ext, deprecated since TensorRT 8.5 ({why}); use IPluginV3"),
    ]
    # the override of a method pure virtual in IPluginV2Ext is a related location of the class's finding: only
    # deprecated at 10.6 (removed in 11.0)
    assert [(r.span.line, r.message) for r in res.diagnostics[0].related] == [
        (14, "FooPlugin::canBroadcastInputAcrossBatch overrides IPluginV2Ext::canBroadcastInputAcrossBatch, deprecated "
             "since TensorRT 10.0 (pure virtual in IPluginV2Ext: every implementation overrides it)")]


def test_a_compatibility_guard_for_an_ancient_release_is_no_target(tmp_path):
    # `#if NV_TENSORRT_MAJOR < 4` keeps a branch for TensorRT 3 and older: the code is not thereby judged as
    # TensorRT 4 code; with nothing else in the tree, no version is known
    root = tmp_path / "p"
    root.mkdir()
    (root / "common.hpp").write_text("#if NV_TENSORRT_MAJOR < 4\n#define OLD 1\n#endif\n", encoding="utf-8")
    res = run(load_settings(root), jobs=1, use_cache=False)
    assert res.analysis["tensorrt_version"]["version"] is None
