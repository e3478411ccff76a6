"""Issue 24 item 2: TRT205 reports a process exit only when a runtime entry reaches it and it fails on a runtime
status; every other exit site is the opt-in TRT215, one finding per plugin. The fixture holds the shapes found on
TensorRT OSS, tensorrtx and FasterTransformer (real libclang): a deserializing constructor that checks cudaMalloc
with a project macro, PLUGIN_CHECK on cudaFree in the destructor (teardown), invariant asserts in build-time
queries, an assert whose message says "error", PLUGIN_FAIL in a switch's default, a pluginStatus_t compared with
STATUS_SUCCESS in enqueue."""

from __future__ import annotations

import shutil
from pathlib import Path

from trtlint.checks.plugin._escape import escapes

from .helpers import check_project

FIXTURE = Path(__file__).parent / "fixtures" / "exit_split"
FOO = "plugin/fooPlugin.cpp"


def _run(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "p")
    return check_project(tmp_path / "p", select=["TRT205", "TRT215"])


def test_trt205_reports_runtime_status_aborts_only(tmp_path):
    res = _run(tmp_path)
    got = sorted((d.span.line, d.message) for d in res.diagnostics if d.code == "TRT205")
    assert got == [
        # the constructor builds the plugin in createPlugin / deserializePlugin: a runtime entry
        (27, "exit (ends the process) (expanded from macro CUDA_OK) can end the process on the status cudaMalloc returns "
             "from FooPlugin::FooPlugin: FooPlugin::FooPlugin -> exit"),
        (28, "PLUGIN_CHECK (calls exit(EXIT_FAILURE) on a non-zero status) can end the process on the status cudaMemcpy "
             "returns from FooPlugin::FooPlugin: FooPlugin::FooPlugin -> PLUGIN_CHECK"),
        # two sites of one macro in one plugin: one finding, the other site related (issue 34)
        (57, "PLUGIN_ASSERT (aborts the process when the assertion fails (reportAssertion)) can end the process on a "
             "status (compared with STATUS_SUCCESS) from FooPlugin::enqueue: FooPlugin::enqueue -> PLUGIN_ASSERT; and at "
             "1 more site of PLUGIN_ASSERT in FooPlugin (the related locations)"),
    ]
    (d,) = [d for d in res.diagnostics if d.code == "TRT205" and d.span.line == 57]
    assert [(r.span.line, r.message) for r in d.related][-1] == (
        58, "PLUGIN_ASSERT can end the process on the status cudaGetLastError returns from FooPlugin::enqueue")


def test_trt215_one_finding_per_plugin_with_every_other_site(tmp_path):
    res = _run(tmp_path)
    (d,) = [d for d in res.diagnostics if d.code == "TRT215"]
    assert (d.span.path, d.span.line, d.severity.value) == (FOO, 33, "info")
    assert d.message.startswith("6 checks in FooPlugin can end the process (PLUGIN_CHECK(cudaFree(mScale)) in "
                                "FooPlugin::~FooPlugin, a status checked only at build time or teardown, and 5 more)")
    assert [(r.span.line, r.message) for r in d.related] == [
        (38, "PLUGIN_ASSERT(pos >= 0 && pos < 2) in FooPlugin::supportsFormatCombination, an invariant"),
        (39, 'assert(nbInputs == 1 && "FooPlugin: one input, no error status to report") in '
             "FooPlugin::supportsFormatCombination, an invariant"),
        # a runtime entry, but the word "error" in the assert's message is not a status
        (45, 'PLUGIN_ASSERT(in[0].desc.dims.nbDims == 4 && "error: FooPlugin takes NCHW") in FooPlugin::configurePlugin, '
             "an invariant"),
        # the branch TensorRT never takes (enqueue only gets the types supportsFormatCombination accepted)
        (54, "PLUGIN_FAIL in FooPlugin::enqueue, an invariant"),
        (64, "CUDA_OK(cudaMemcpy(buffer, mScale, 4, cudaMemcpyDeviceToHost)) in FooPlugin::serialize, a status checked "
             "only at build time or teardown"),
    ]

    # together with TRT205 every exit site below the plugin, once: nothing the old TRT205 reported is lost
    every = sorted((e.call.span.path, e.call.span.line) for e in escapes(res.index, "exit", honour_try=False, noexcept_only=False))
    sites = [(x.span.path, x.span.line) for x in res.diagnostics if x.code == "TRT205"]
    sites += [(r.span.path, r.span.line) for x in res.diagnostics if x.code == "TRT205" for r in x.related
              if "can end the process" in r.message]
    sites += [(d.span.path, d.span.line)] + [(r.span.path, r.span.line) for r in d.related]
    assert sorted(sites) == every and len(every) == 10


def test_the_other_sites_of_a_compiled_out_macro_are_named_compiled_out_too(tmp_path):
    """`assert` at two sites of a plugin built with NDEBUG: one finding says the check is compiled out, and the
    related other site says so too (not that it "can end the process")."""
    from trtlint.checks.examples.plugin import exits_plugin

    proj = tmp_path / "p"
    (proj / "plugins").mkdir(parents=True)
    (proj / "CMakeLists.txt").write_text("project(foo)\nset(CMAKE_BUILD_TYPE Release)\nadd_library(foo SHARED plugins/foo.cpp)\n")
    (proj / "plugins/foo.cpp").write_text(exits_plugin(
        enqueue="        cudaError_t s = cudaMemsetAsync(outputs[0], 0, 16, stream);\n        assert(s == cudaSuccess);\n"
                "        s = cudaMemsetAsync(outputs[1], 0, 16, stream);\n        assert(s == cudaSuccess);",
        helpers="#include <cassert>"))
    res = check_project(proj, select=["TRT205"])
    (d,) = [d for d in res.diagnostics if d.code == "TRT205"]
    assert d.message.startswith("assert is compiled out in this program"), d.message
    others = [r.message for r in d.related if r.span.line != d.span.line and "compiled out" in r.message]
    assert others == ["assert is compiled out here too: its check on a status (compared with cudaSuccess) from "
                      "FooPlugin::enqueue does nothing"], [r.message for r in d.related]
