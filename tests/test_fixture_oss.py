"""A TensorRT OSS-shaped fixture (generic profile): V2 and V3 plugins, a BaseCreator, a creator registered by
list (initializePlugin<...>) and one by macro, a #define version, torch.onnx symbolics in the default domain,
a V2 plugin and its creator in a .cu file, and a copied V3 plugin that kept its original's registration."""

from __future__ import annotations

from pathlib import Path

from trtlint.config import load_settings
from trtlint.engine import run

FIXTURE = Path(__file__).parent / "fixtures" / "oss_mini"
SYM = "python/export_symbolics.py"

EXPECTED = [
    ("TRT102", "plugin/clipPlugin/clipPluginLegacy.cpp", 26, "plugin ClipLegacyPlugin returns version '1' from getPluginVersion(), but its creator ClipLegacyPluginCreator (which creates it in createPlugin) registers version '2'"),
    ("TRT102", SYM, 13, "ONNX node 'Clip_TRT' asks for 'Clip_TRT' version '1' (the default when plugin_version is absent), but its creator registers version '2'"),
    ("TRT103", SYM, 9, "attribute 'bias' of ONNX node 'ScaleShift_TRT' is not a field creator ScaleShiftPluginCreator declares"),
    ("TRT108", "plugin/clipPlugin/clipPluginLegacy.cpp", 74, "ClipLegacyPluginCreator registers ('Clip_TRT', version '2', namespace ''), which ClipPluginCreator already registers at plugin/clipPlugin/clipPlugin.cpp:46"),
    ("TRT203", "plugin/lReluPlugin/lReluPlugin.cu", 37, "plugin name 'LReLU_TRT' is written as a string literal in LReluPlugin::getPluginType() and spelled again in LReluPluginCreator::getPluginName()"),
    ("TRT211", "plugin/lReluPlugin/lReluPlugin.cu", 57, "creator LReluPluginCreator ('LReLU_TRT', version '1') is never registered"),
    ("TRT212", "plugin/lReluPlugin/lReluPlugin.cu", 88, "LReluPluginCreator::createPlugin creates LReluPlugin without passing it the creator's namespace"),
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
    assert set(creators) == {"Clip_TRT", "ScaleShift_TRT", "LReLU_TRT"}  # BaseCreator is a base, not a creator
    ss = creators["ScaleShift_TRT"]
    assert ss.cls.family == "creator_v2" and ss.cls.qualname == "nvinfer1::plugin::ScaleShiftPluginCreator"
    assert [(r.how, r.span.path) for r in ss.registrations] == [("list", "plugin/api/inferPlugin.cpp")]
    clip = creators["Clip_TRT"]
    assert clip.plugin_version == "2" and clip.version.via == "CLIP_PLUGIN_VERSION"
    assert [(r.how, r.span.line) for r in clip.registrations] == [("macro", 46)]
    plugins = {p.plugin_name: p for p in idx.plugins}
    assert plugins["ScaleShift_TRT"].cls.family == "v2dynext"  # named through getPluginType
