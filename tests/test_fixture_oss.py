"""A TensorRT OSS-shaped fixture (generic profile): V2 and V3 plugins, a BaseCreator, a creator registered by
list (initializePlugin<...>) and one by macro, a #define version, torch.onnx symbolics in the default domain,
a V2 plugin serialized with write(d, x) / read<T>(d), V3 and V2 plugins with their creators in .cu files, and a
copied V3 plugin that kept its original's registration."""

from __future__ import annotations

from pathlib import Path

from trtlint.config.settings import load_settings
from trtlint.pipeline.run import run

from .test_fixture_project import findings_diff

FIXTURE = Path(__file__).parent / "fixtures" / "oss_mini"
SYM = "python/export_symbolics.py"
CLIP = "plugin/clipPlugin/clipPlugin.cpp"
CLIP_CU = "plugin/clipPlugin/clipPlugin.cu"
SS = "plugin/scaleShiftPlugin/scaleShiftPlugin.cpp"
SS_CU = "plugin/scaleShiftPlugin/scaleShiftKernel.cu"

# every finding, exactly: (code, severity, path, line, column, message). Severities follow the method's
# temperature (hot enqueue: error; warm onShapeChange / V2DynExt configurePlugin: warning; cold: info) and drop to
# info for one-time initialisation; rules whose default is not error (e.g. TRT207 warning) keep it otherwise
EXPECTED = [
    ("TRT102", "error", "plugin/clipPlugin/clipPluginLegacy.cpp", 26, 16, "plugin ClipLegacyPlugin returns version '1' from getPluginVersion(), but its creator ClipLegacyPluginCreator (which creates it in createPlugin) registers version '2': an engine holding this plugin cannot be deserialized"),
    ("TRT102", "error", SYM, 13, 12, "ONNX node 'Clip_TRT' asks for 'Clip_TRT' version '1' (the default when plugin_version is absent), but its creator registers version '2'"),
    ("TRT103", "error", SYM, 9, 68, "attribute 'bias' of ONNX node 'ScaleShift_TRT' is not a field creator ScaleShiftPluginCreator declares (getFieldNames: scale, shift): TensorRT drops it silently"),
    # issue 3: OSS check macros (plugin/vc/checkMacrosPlugin.h), a V2DynExt plugin and a V3 plugin in a .cu file
    # TRT204: one finding per noexcept method, at its definition (issue 24 item 4); the sites are related locations
    ("TRT204", "error", CLIP, 36, 5, "noexcept ClipPluginCreator::createPlugin can throw at 1 site with no try/catch on the way, and an exception leaving it calls std::terminate: PLUGIN_VALIDATE (throws PluginError when the condition is false) via ClipPluginCreator::createPlugin -> PLUGIN_VALIDATE"),
    ("TRT204", "error", CLIP_CU, 65, 5, "noexcept ClipPlugin::onShapeChange can throw at 1 site with no try/catch on the way, and an exception leaving it calls std::terminate: PLUGIN_CUASSERT (throws CudaError on a CUDA error) via ClipPlugin::onShapeChange -> PLUGIN_CUASSERT"),
    ("TRT204", "error", SS, 52, 1, "noexcept ScaleShiftPlugin::configurePlugin can throw at 2 sites with no try/catch on the way, and an exception leaving it calls std::terminate: PLUGIN_VALIDATE (throws PluginError when the condition is false) via ScaleShiftPlugin::configurePlugin -> PLUGIN_VALIDATE; PLUGIN_CUASSERT (throws CudaError on a CUDA error) via ScaleShiftPlugin::configurePlugin -> PLUGIN_CUASSERT"),
    ("TRT302", "error", SS_CU, 20, 5, "cudaMemcpy (copy on the legacy default stream) synchronizes on the hot path of ScaleShiftPlugin::enqueue: ScaleShiftPlugin::enqueue -> scaleShiftInference -> cudaMemcpy"),
    ("TRT303", "error", CLIP_CU, 54, 13, "kernel launch clipKernel<<<...>>> has no stream on the hot path of ClipPlugin::enqueue: ClipPlugin::enqueue -> clipKernel"),
    ("TRT303", "warning", CLIP_CU, 69, 25, "cudaMemcpyAsync runs on the default stream (`0`) on the warm path (runs whenever input shapes change) of ClipPlugin::onShapeChange: ClipPlugin::onShapeChange -> cudaMemcpyAsync"),
    ("TRT303", "error", SS_CU, 22, 5, "cudaMemsetAsync is given no stream (its stream parameter defaults to the legacy default stream) on the hot path of ScaleShiftPlugin::enqueue: ScaleShiftPlugin::enqueue -> scaleShiftInference -> cudaMemsetAsync"),
    # the discarded statuses of the cudaMemcpy (20) and the stream-less cudaMemsetAsync (22) are notes of TRT302 / TRT303
    ("TRT305", "warning", CLIP_CU, 69, 25, "cudaMemcpyAsync copies from pageable host memory (`bounds`, a local variable on the stack) on the warm path (runs whenever input shapes change) of ClipPlugin::onShapeChange: the copy is synchronous with the host and cannot be captured in a CUDA graph: ClipPlugin::onShapeChange -> cudaMemcpyAsync"),
    ("TRT305", "error", SS_CU, 23, 21, "cudaMemcpyAsync copies from pageable host memory (`host`, a local variable on the stack) on the hot path of ScaleShiftPlugin::enqueue: the copy is synchronous with the host and cannot be captured in a CUDA graph: ScaleShiftPlugin::enqueue -> scaleShiftInference -> cudaMemcpyAsync"),
    ("TRT201", "error", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 38, 16, "EmbLayerNormPlugin::getCapabilityInterface returns IPluginV3OneCore (the kCORE capability) for PluginCapabilityType::kRUNTIME (it falls through to this return); it must return IPluginV3OneRuntime"),
    ("TRT202", "error", "plugin/regionPlugin/regionPlugin.cpp", 30, 15, "Region's deserializing constructor reads item 2 as int (4 bytes), but serialize() writes `mThresh` as float (4 bytes)"),
    ("TRT207", "warning", "plugin/common/plugin.h", 9, 7, "BaseCreator implements IPluginCreator, deprecated since TensorRT 10.0 (targeting 11.1, inferred from include/NvInferVersion.h:2); use IPluginCreatorV3One"),
    ("TRT207", "warning", "plugin/regionPlugin/regionPlugin.h", 12, 7, "Region implements IPluginV2Ext, deprecated since TensorRT 8.5 (targeting 11.1, inferred from include/NvInferVersion.h:2); use IPluginV3"),
    ("TRT207", "warning", "plugin/scaleShiftPlugin/scaleShiftPlugin.h", 13, 7, "ScaleShiftPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 11.1, inferred from include/NvInferVersion.h:2); use IPluginV3"),
    ("TRT208", "error", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 74, 54, "PluginField 'output_fp16' is declared kINT32 (TensorRT reads a 4-byte integer), but its data `&output_fp16` points to bool (1 byte)"),
    ("TRT209", "error", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 74, 54, "PluginField 'output_fp16' points to local `output_fp16` of EmbLayerNormPlugin::getFieldsToSerialize, but the field is kept in a member container that TensorRT reads after the function returns: the pointer dangles"),
    ("TRT210", "error", "plugin/regionPlugin/regionPlugin.cpp", 49, 16, "Region::enqueue returns `false` from an int32_t status method: false converts to 0, which TensorRT reads as success"),
    # rules and fixture parts that landed in parallel meet here: both are right by their rule
    ("TRT207", "warning", "plugin/lReluPlugin/lReluPlugin.cu", 28, 7, "LReluPlugin implements IPluginV2DynamicExt, deprecated since TensorRT 10.0 (targeting 11.1, inferred from include/NvInferVersion.h:2); use IPluginV3"),
    ("TRT108", "error", "plugin/clipPlugin/clipPluginLegacy.cpp", 74, 1, "ClipLegacyPluginCreator registers ('Clip_TRT', version '2', namespace ''), which ClipPluginCreator already registers at plugin/clipPlugin/clipPlugin.cpp:46: the registry keeps only one of them"),
    ("TRT211", "error", "plugin/lReluPlugin/lReluPlugin.cu", 57, 7, "creator LReluPluginCreator ('LReLU_TRT', version '1') is never registered: no REGISTER_TENSORRT_PLUGIN(LReluPluginCreator), no creator list and no initializePlugin<...> names it, so TensorRT cannot find the plugin"),
]

# opt-in rules (not in the default set, issue 24): reported only when selected
OPT_IN_EXPECTED = [
    # an invariant assert in supportsFormatCombination: TRT215, no longer TRT205 (which reports aborts on a runtime status)
    ("TRT215", "info", SS, 65, 5, "1 check in ScaleShiftPlugin can end the process (PLUGIN_ASSERT(nbInputs == 1 && nbOutputs == 1) in ScaleShiftPlugin::supportsFormatCombination, an invariant), where a failure could be an error status TensorRT reports"),
    ("TRT214", "warning", "plugin/embLayerNormPlugin/embLayerNormPlugin.cu", 117, 5, "EmbLayerNormPluginCreator::createPlugin silently falls back to defaults for fields EmbLayerNormPlugin serializes (so they are required at runtime): output_fp16 -> 0"),
    ("TRT203", "warning", "plugin/lReluPlugin/lReluPlugin.cu", 37, 16, "plugin name 'LReLU_TRT' is written as a string literal in LReluPlugin::getPluginType() and spelled again in LReluPluginCreator::getPluginName(): define it once as a named constant"),
    ("TRT212", "warning", "plugin/lReluPlugin/lReluPlugin.cu", 88, 20, "LReluPluginCreator::createPlugin creates LReluPlugin without passing it the creator's namespace (no setPluginNamespace call, no namespace constructor argument): LReluPlugin::getPluginNamespace() returns its own member, so the engine records the wrong namespace"),
]


def test_oss_fixture_findings_exact():
    res = run(load_settings(FIXTURE), jobs=1, use_cache=False)
    assert res.profile.name == "generic"
    got = sorted((d.code, d.severity.value, d.span.path, d.span.line, d.span.col, d.message) for d in res.diagnostics)
    assert got == sorted(EXPECTED), findings_diff(got, EXPECTED)


def test_oss_fixture_opt_in_rules_report_when_selected():
    s = load_settings(FIXTURE)
    s.extend_select = ["TRT203", "TRT212", "TRT214", "TRT215"]
    res = run(s, jobs=1, use_cache=False)
    got = sorted((d.code, d.severity.value, d.span.path, d.span.line, d.span.col, d.message) for d in res.diagnostics)
    assert got == sorted(EXPECTED + OPT_IN_EXPECTED), findings_diff(got, EXPECTED + OPT_IN_EXPECTED)


def test_oss_fixture_index():
    idx = run(load_settings(FIXTURE), jobs=1, use_cache=False).index
    creators = {c.plugin_name: c for c in idx.creators}
    # BaseCreator is a base, not a creator
    assert set(creators) == {"Clip_TRT", "ScaleShift_TRT", "RegionMini_TRT", "EmbLayerNormMini_TRT", "LReLU_TRT"}
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
