"""Code still on TensorRT 7/8 (issue 23): the stand-ins for the removed API, and calls libclang drops."""

from __future__ import annotations

from trtlint.checks.examples.hotpath import plugin_cpp
from trtlint.checks.hotpath.enqueue_allocation import _TRT7_PLUGIN

from .helpers import check_project, write_project


def _calls(res, qualname):
    return [c for fn in res.index.functions.values() if fn.qualname == qualname for c in fn.calls]


def test_removed_types_resolve_through_the_stand_ins(tmp_path):
    # DimsCHW, DimsNCHW, PluginFormat::kNCHW: the call to the helper resolves to its declaration (a USR)
    src = _TRT7_PLUGIN.replace("static void prepare(DimsCHW dims,", "static void prepare(DimsNCHW n, DimsCHW dims,")
    src = src.replace("prepare(mDims,", "prepare(DimsNCHW(1, 2, 3, 4), mDims,")
    write_project(tmp_path, {"plugins/old.cu": src})
    res = check_project(tmp_path, select=["TRT301"])
    calls = [c for c in _calls(res, "OldPlugin::enqueue") if c.callee == "prepare"]
    assert len(calls) == 1 and calls[0].usr
    assert [(d.span.line, d.message.split(": ")[-1]) for d in res.diagnostics] == [
        (7, "OldPlugin::enqueue -> prepare -> cudaMalloc")]


def test_a_call_with_an_argument_type_that_did_not_resolve_is_kept(tmp_path):
    # LegacyShape is declared by no header: libclang drops the call to prepare altogether; its text is kept
    helpers = ("static void prepare(LegacyShape shape, void* out)\n{\n    void* p = nullptr;\n"
               "    cudaMalloc(&p, 16);\n}\nstatic LegacyShape gShape;")
    body = "    // the shape of the output\n    prepare(gShape, outputs[0]); /* every call */\n    helpers::prepare(gShape, outputs[0]);"
    write_project(tmp_path, {"plugins/foo.cu": plugin_cpp(body, helpers)})
    res = check_project(tmp_path, select=["TRT301"])
    kept = [(c.callee, c.span.line, c.span.col, c.args, c.usr) for c in _calls(res, "FooPlugin::enqueue")]
    assert kept == [("prepare", 21, 5, ("gShape", "outputs[0]"), None), ("helpers::prepare", 22, 5, ("gShape", "outputs[0]"), None)]
    assert [(d.span.line, d.message.split(": ")[-1]) for d in res.diagnostics] == [
        (8, "FooPlugin::enqueue -> prepare -> cudaMalloc")]


def test_text_in_a_skipped_preprocessor_branch_is_no_call(tmp_path):
    body = "#if 0\n    void* p = nullptr;\n    cudaMalloc(&p, 16);\n#endif\n    cudaMemsetAsync(outputs[0], 0, 16, stream);"
    write_project(tmp_path, {"plugins/foo.cpp": plugin_cpp(body)})
    res = check_project(tmp_path, select=["TRT301"])
    assert [c.callee for c in _calls(res, "FooPlugin::enqueue")] == ["cudaMemsetAsync"]
    assert res.diagnostics == []
