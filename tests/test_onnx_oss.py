"""ONNX models next to a TensorRT OSS-shaped plugin tree (tests/fixtures/oss_mini plus a plugin spec and models
built with onnx.helper in a copy): every TRT001/TRT1xx/TRT5xx finding, exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

from onnx import TensorProto, helper

from tests.helpers import check_project
from tests.test_fixture_project import findings_diff

FIXTURE = Path(__file__).parent / "fixtures" / "oss_mini"

SPEC = """---
name: ScaleShift_TRT
interface: "IPluginV2DynamicExt"
versions:
  "1":
    attributes:
      - scale
      - shift
    attribute_types:
      scale: float32
      shift: float32
    attributes_required:
      - scale
      - shift
"""


def _model(nodes, opsets=(("", 17), ("trt", 1))) -> bytes:
    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes]
    g = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)], outs)
    return helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets]).SerializeToString()


def test_models_against_an_oss_plugin_tree(tmp_path):
    root = tmp_path / "oss"
    shutil.copytree(FIXTURE, root)
    (root / "plugin/scaleShiftPlugin/ScaleShift_PluginConfig.yaml").write_text(SPEC)
    models = root / "models"
    models.mkdir()
    (models / "good.onnx").write_bytes(
        _model(
            [
                helper.make_node("Relu", ["x"], ["r"], name="relu"),
                helper.make_node("ScaleShift_TRT", ["r"], ["s"], name="ss", domain="trt", scale=2.0, shift=0.5),
                helper.make_node("Clip_TRT", ["s"], ["c"], name="clip", domain="trt", clipMin=0.0, clipMax=6.0, plugin_version="2"),
            ]
        )
    )
    (models / "bad.onnx").write_bytes(
        _model(
            [
                # spec-required 'shift' missing, 'bias' undeclared (dropped), shape-input indices on a V2 creator
                helper.make_node("ScaleShift_TRT", ["x", "x"], ["s"], name="ss", domain="trt", scale=2.0, bias=1.0,
                                 tensorrt_plugin_shape_input_indices=[1]),
                # no plugin_version: the parser asks for "1", the creator registers "2"
                helper.make_node("Clip_TRT", ["s"], ["c1"], name="clip_default", domain="trt", clipMin=0.0, clipMax=6.0),
                # plugin_version as an INT: read as ""
                helper.make_node("Clip_TRT", ["s"], ["c2"], name="clip_int", domain="trt", clipMin=0.0, clipMax=6.0, plugin_version=2),
                # a typo, in the default domain
                helper.make_node("ScaleShft_TRT", ["s"], ["t"], name="typo", scale=1.0),
            ]
        )
    )
    (models / "cut.onnx").write_bytes((models / "good.onnx").read_bytes()[:40])
    res = check_project(root, select=["TRT001", "TRT1", "TRT5"])
    got = sorted((d.code, d.severity.value, d.span.path, d.span.line, d.span.col, d.logical or "", d.message) for d in res.diagnostics)
    # every finding, exactly: (code, severity, path, line, column, logical location, message)
    expected = [
        ("TRT101", "error", "models/bad.onnx", 1, 1, "net/typo", "ONNX node 'net/typo' (ScaleShft_TRT) names plugin 'ScaleShft_TRT', but no creator registers it; closest registered: 'ScaleShift_TRT'"),
        ("TRT103", "error", "models/bad.onnx", 1, 1, "net/ss", "ONNX node 'net/ss' (trt::ScaleShift_TRT) does not set attribute 'shift', which ScaleShift_PluginConfig.yaml marks required for 'ScaleShift_TRT' version '1': the parser only warns (\"Attribute shift not found in plugin node\") and the creator gets no value for it"),
        ("TRT103", "error", "models/bad.onnx", 1, 1, "net/ss", "attribute 'bias' of ONNX node 'net/ss' (trt::ScaleShift_TRT) is not a field creator ScaleShiftPluginCreator declares (getFieldNames: scale, shift): TensorRT drops it silently"),
        ("TRT502", "error", "models/bad.onnx", 1, 1, "net/clip_default", "ONNX node 'net/clip_default' (trt::Clip_TRT) has no plugin_version, so the parser asks for version '1', but creator ClipLegacyPluginCreator registers only version '2': set plugin_version=\"2\""),
        ("TRT505", "error", "models/bad.onnx", 1, 1, "net/clip_int", "ONNX node 'net/clip_int' (trt::Clip_TRT): plugin_version is an INT attribute (2); TensorRT's ONNX parser reads it as a string and asks for version '': write it as a STRING attribute"),
        ("TRT505", "error", "models/bad.onnx", 1, 1, "net/ss", "ONNX node 'net/ss' (trt::ScaleShift_TRT): tensorrt_plugin_shape_input_indices is set, but creator ScaleShiftPluginCreator is an IPluginCreator (V2) creator: TensorRT's ONNX parser ignores the indices and passes those inputs as ordinary tensors"),
        ("TRT506", "warning", "models/bad.onnx", 1, 1, "net/typo", "ONNX node 'net/typo' (ScaleShft_TRT) is a plugin op in the default ONNX domain, where the ONNX standard defines no 'ScaleShft_TRT': onnx.checker, shape inference and ONNX Runtime reject the model; put it in a custom domain (with an opset import)"),
        ("TRT001", "warning", "models/cut.onnx", 1, 1, "", "models/cut.onnx could not be parsed: not a valid ONNX model (protobuf decoding failed: Error parsing message with type 'onnx.ModelProto': Wire format was corrupt); a truncated or corrupt file?"),
        # the tree's own TRT1xx findings (tests/test_fixture_oss.py has them all)
        ("TRT102", "error", "plugin/clipPlugin/clipPluginLegacy.cpp", 26, 16, "", "plugin ClipLegacyPlugin returns version '1' from getPluginVersion(), but its creator ClipLegacyPluginCreator (which creates it in createPlugin) registers version '2': an engine holding this plugin cannot be deserialized"),
        ("TRT108", "error", "plugin/clipPlugin/clipPluginLegacy.cpp", 74, 1, "", "ClipLegacyPluginCreator registers ('Clip_TRT', version '2', namespace ''), which ClipPluginCreator already registers at plugin/clipPlugin/clipPlugin.cpp:46: the registry keeps only one of them"),
        ("TRT103", "error", "python/export_symbolics.py", 9, 68, "", "attribute 'bias' of ONNX node 'ScaleShift_TRT' is not a field creator ScaleShiftPluginCreator declares (getFieldNames: scale, shift): TensorRT drops it silently"),
        ("TRT102", "error", "python/export_symbolics.py", 13, 12, "", "ONNX node 'Clip_TRT' asks for 'Clip_TRT' version '1' (the default when plugin_version is absent), but its creator registers version '2'"),
    ]
    assert got == sorted(expected), findings_diff(got, expected)
    # the plugin spec is read and joined with its C++ creator
    (spec,) = res.index.plugin_specs
    assert (spec.name, spec.version, spec.required) == ("ScaleShift_TRT", "1", ("scale", "shift"))
