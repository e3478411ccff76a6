"""Creator fields declared by their name only (`PluginField("mode")`: TensorRT's defaults, no data, kUNKNOWN), as
open-mmlab/mmcv's TensorRT creators declare theirs: the rules that name a field's type say it is not given."""

from __future__ import annotations

from trtlint.checks.examples.contract import creator_cpp
from trtlint.checks.examples.onnx import onnx_model, onnx_node

from .helpers import check_project, write_project


def test_an_unconvertible_attribute_names_a_field_declared_by_name_only_as_such(tmp_path):
    write_project(tmp_path, {
        "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin", fields=(("n", None),)),
        "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", n=2**32), opsets=(("", 17), ("trt_plugins", 1))),
    })
    (d,) = [d for d in check_project(tmp_path, select=["TRT504"]).diagnostics if d.code == "TRT504"]
    assert "outside int32" in d.message
    assert [r.message for r in d.related] == ["'n' is declared here by its name only (no PluginFieldType)"]
