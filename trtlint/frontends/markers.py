"""The cheap text test that tells whether a C++ file can hold a plugin fact (discovery's scans, the shared-header plan,
the C++ frontend's kept walk from a cache entry). Pure functions of a file's bytes."""

from __future__ import annotations

import re

MARKER_LITERALS = (
    b"IPluginV",
    b"IPluginCreator",
    b"REGISTER_TENSORRT_PLUGIN",
    b"PluginField",
    b"getPluginName",
    b"BaseCreator",
    b"initializePlugin",
    b"addPluginCreator",
    b"registerCreator",
    b"getPluginCreator",  # C++ model code looking a creator up (a route: issue 23)
    b"getCreator",
    b"CustomOpBase",  # an ONNX Runtime custom op (Ort::CustomOpBase<...>): its op is another runtime's (OrtCustomOp)
)
_ENQUEUE_DEF = re.compile(rb"\w::enqueue\s*\(")
# a class deriving a plugin interface of TensorRT 5-7 (IPlugin, IPluginExt): never analysed, and TRT004 says so
_LEGACY_BASE = re.compile(rb"\bpublic\s+(?:nvinfer1\s*::\s*)?IPlugin(?:Ext)?\b")


_MARKERS_PLUGIN = tuple(m for m in MARKER_LITERALS if b"Plugin" in m)
_MARKERS_CREATOR = tuple(m for m in MARKER_LITERALS if b"Creator" in m and b"Plugin" not in m)
_MARKERS_OTHER = tuple(m for m in MARKER_LITERALS if m not in _MARKERS_PLUGIN and m not in _MARKERS_CREATOR)


def has_plugin_marker(data: bytes) -> bool:
    """The cheap text test that decides whether a C++ file can hold a plugin fact: literal searches, then one
    regex. The literals are grouped by a common part ("Plugin", "Creator"), looked for first: the generated
    cubin sources of TensorRT OSS (250 MB of C++ in all) hold neither, and are scanned 4 times instead of 10
    (1.1 -> 0.6 s)."""
    if b"Plugin" in data and any(lit in data for lit in _MARKERS_PLUGIN):
        return True
    if b"Creator" in data and any(lit in data for lit in _MARKERS_CREATOR):
        return True
    if any(lit in data for lit in _MARKERS_OTHER):
        return True
    if b"::enqueue" in data and _ENQUEUE_DEF.search(data) is not None:
        return True
    return b"public" in data and b"IPlugin" in data and _LEGACY_BASE.search(data) is not None
