"""ONNX models next to a TensorRT OSS-shaped plugin tree (tests/fixtures/oss_mini plus a plugin spec and models
built with onnx.helper in a copy): every TRT1xx/TRT5xx finding on the models, exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

from onnx import TensorProto, helper

from tests.helpers import check_project

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
    got = sorted((d.code, d.span.path, d.logical or "", d.message) for d in res.diagnostics if d.span.path.startswith("models/"))
    expected = [
        ("TRT001", "models/cut.onnx", "", "not a valid ONNX model"),
        ("TRT101", "models/bad.onnx", "net/typo", "names plugin 'ScaleShft_TRT', but no creator registers it; closest registered: 'ScaleShift_TRT'"),
        ("TRT103", "models/bad.onnx", "net/ss", "does not set attribute 'shift', which ScaleShift_PluginConfig.yaml marks required for 'ScaleShift_TRT' version '1'"),
        ("TRT103", "models/bad.onnx", "net/ss", "attribute 'bias' of ONNX node 'net/ss' (trt::ScaleShift_TRT) is not a field creator ScaleShiftPluginCreator declares (getFieldNames: scale, shift)"),
        ("TRT502", "models/bad.onnx", "net/clip_default", "has no plugin_version, so the parser asks for version '1', but creator Clip"),
        ("TRT505", "models/bad.onnx", "net/clip_int", "plugin_version is an INT attribute (2); TensorRT's ONNX parser reads it as a string and asks for version ''"),
        ("TRT505", "models/bad.onnx", "net/ss", "tensorrt_plugin_shape_input_indices is set, but creator ScaleShiftPluginCreator is an IPluginCreator (V2) creator"),
        ("TRT506", "models/bad.onnx", "net/typo", "is a plugin op in the default ONNX domain"),
    ]
    assert len(got) == len(expected), "\n".join(map(str, got))
    for (code, path, logical, frag), g in zip(expected, got):
        assert g[:3] == (code, path, logical) and frag in g[3], g
    # the plugin spec is read and joined with its C++ creator
    (spec,) = res.index.plugin_specs
    assert (spec.name, spec.version, spec.required) == ("ScaleShift_TRT", "1", ("scale", "shift"))
