"""A TensorRT OSS-shaped fixture (generic profile): V2 and V3 plugins, a BaseCreator, a creator registered by
list (initializePlugin<...>) and one by macro, a #define version, torch.onnx symbolics in the default domain,
a V2 plugin serialized with write(d, x) / read<T>(d), a V3 plugin and its creator in a .cu file."""

from __future__ import annotations

from pathlib import Path

from trtlint.config import load_settings
from trtlint.engine import run

FIXTURE = Path(__file__).parent / "fixtures" / "oss_mini"
SYM = "python/export_symbolics.py"

EXPECTED = [
    ("TRT102", SYM, 13, "ONNX node 'Clip_TRT' asks for 'Clip_TRT' version '1' (the default when plugin_version is absent), but its creator registers version '2'"),
    ("TRT103", SYM, 9, "attribute 'bias' of ONNX node 'ScaleShift_TRT' is not a field creator ScaleShiftPluginCreator declares"),
    ("TRT201", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 38, "EmbLayerNormPlugin::getCapabilityInterface returns IPluginV3OneCore (the kCORE capability) for PluginCapabilityType::kRUNTIME (it falls through to this return)"),
    ("TRT202", "plugin/regionPlugin/regionPlugin.cpp", 30, "Region's deserializing constructor reads item 2 as int (4 bytes), but serialize() writes `mThresh` as float (4 bytes)"),
    ("TRT207", "plugin/common/plugin.h", 9, "BaseCreator implements IPluginCreator, deprecated since TensorRT 10.0 (targeting 11.1); use IPluginCreatorV3One"),
    ("TRT207", "plugin/regionPlugin/regionPlugin.h", 12, "Region implements IPluginV2Ext, deprecated since TensorRT 8.5"),
    ("TRT207", "plugin/scaleShiftPlugin/scaleShiftPlugin.h", 13, "ScaleShiftPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0"),
    ("TRT208", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 74, "PluginField 'output_fp16' is declared kINT32 (TensorRT reads a 4-byte integer), but its data `&output_fp16` points to bool (1 byte)"),
    ("TRT209", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 74, "PluginField 'output_fp16' points to local `output_fp16` of EmbLayerNormPlugin::getFieldsToSerialize"),
    ("TRT210", "plugin/regionPlugin/regionPlugin.cpp", 49, "Region::enqueue returns `false` from an int32_t status method"),
    ("TRT302", "plugin/scaleShiftPlugin/scaleShiftKernel.cu", 20, "ScaleShiftPlugin::enqueue -> scaleShiftInference -> cudaMemcpy"),
]


def test_oss_fixture_findings_exact():
    res = run(load_settings(FIXTURE), jobs=1, use_cache=False)
    assert res.profile.name == "generic"
    got = sorted((d.code, d.span.path, d.span.line, d.message) for d in res.diagnostics)
    assert len(got) == len(EXPECTED), "\n".join(map(str, got))
    for (code, path, line, frag), g in zip(EXPECTED, got):
        assert (g[0], g[1], g[2]) == (code, path, line) and frag in g[3], g


def test_oss_fixture_index():
    idx = run(load_settings(FIXTURE), jobs=1, use_cache=False).index
    creators = {c.plugin_name: c for c in idx.creators}
    # BaseCreator is a base, not a creator
    assert set(creators) == {"Clip_TRT", "ScaleShift_TRT", "RegionMini_TRT", "EmbLayerNormMini_TRT"}
    assert creators["RegionMini_TRT"].cls.family == "creator_v2"  # through BaseCreator
    assert creators["EmbLayerNormMini_TRT"].cls.span.path.endswith(".cu")
    ss = creators["ScaleShift_TRT"]
    assert ss.cls.family == "creator_v2" and ss.cls.qualname == "nvinfer1::plugin::ScaleShiftPluginCreator"
    assert [(r.how, r.span.path) for r in ss.registrations] == [("list", "plugin/api/inferPlugin.cpp")]
    clip = creators["Clip_TRT"]
    assert clip.plugin_version == "2" and clip.version.via == "CLIP_PLUGIN_VERSION"
    assert [(r.how, r.span.line) for r in clip.registrations] == [("macro", 46)]
    plugins = {p.plugin_name: p for p in idx.plugins}
    assert plugins["ScaleShift_TRT"].cls.family == "v2dynext"  # named through getPluginType
