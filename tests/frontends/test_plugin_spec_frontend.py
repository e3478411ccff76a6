"""TensorRT OSS *_PluginConfig.yaml specs -> PluginSpec facts."""

from pathlib import Path

from trtlint.frontends import ExtractContext, SourceFile
from trtlint.frontends import plugin_spec as fe

SPEC = """#
# SPDX-License-Identifier: Apache-2.0
#
---
name: EfficientNMS_TRT
interface: "IPluginV2DynamicExt"
versions:
  "1":
    attributes:
      - score_threshold
      - max_output_boxes
      - label
    attribute_types:
      score_threshold: float32
      max_output_boxes: int32
      label: char
    attribute_length:
      score_threshold: 1
      max_output_boxes: 1
      label: -1
    attributes_required:
      - max_output_boxes
  "2":
    attributes:
      - score_threshold
    attribute_types:
      score_threshold: float32
"""


def extract(tmp_path: Path, rel: str, text: str):
    p = tmp_path / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return fe.extract(SourceFile(p, rel, "yaml", "d"), ExtractContext(root=tmp_path))


def test_spec_versions_fields_types_and_lines(tmp_path):
    ff = extract(tmp_path, "plugin/nms/EfficientNMSPlugin_PluginConfig.yaml", SPEC)
    assert ff.problems == ()
    v1, v2 = ff.plugin_specs
    assert (v1.name, v1.version, v1.interface, v1.span.line, v1.version_span.line) == ("EfficientNMS_TRT", "1", "IPluginV2DynamicExt", 5, 8)
    assert [(f.name, f.type, f.length, f.span.line) for f in v1.fields] == [
        ("score_threshold", "kFLOAT32", "1", 10),
        ("max_output_boxes", "kINT32", "1", 11),
        ("label", "kCHAR", "-1", 12),
    ]
    assert v1.required == ("max_output_boxes",)
    assert (v2.version, [f.name for f in v2.fields], v2.required) == ("2", ["score_threshold"], ())


def test_other_yaml_is_not_read_and_bad_yaml_is_a_problem(tmp_path):
    assert extract(tmp_path, ".github/workflows/ci.yaml", "on: [push]\n").plugin_specs == ()
    ff = extract(tmp_path, "plugin/x/X_PluginConfig.yaml", "name: X\nversions:\n  \"1\": [unclosed\n")
    assert ff.plugin_specs == () and "invalid YAML" in ff.problems[0].message and ff.problems[0].span.line >= 3
    ff = extract(tmp_path, "plugin/y/Y_PluginConfig.yaml", "- just\n- a list\n")
    assert "must be a mapping" in ff.problems[0].message
