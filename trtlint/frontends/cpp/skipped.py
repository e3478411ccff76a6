"""Plugin code in the preprocessor branches a parse did not compile. A unit whose plugin is written for another
TensorRT release (``#if NV_TENSORRT_MAJOR <= 7`` around the whole file, parsed with 10.x headers) or kept in an
``#if 0`` yields no facts for it: no rule sees that plugin, and the run must say so (TRT004). The branches are
libclang's skipped ranges of the unit's own file (``clang_getSkippedRanges``, not wrapped by the Python bindings:
bound here with ctypes); in each, the text is searched for a registration (``REGISTER_TENSORRT_PLUGIN(X)``,
``registerCreator(X...)``), for a class deriving a plugin or creator interface (``class X : public
IPluginV2DynamicExt``), for a registry lookup by literal name (``getPluginCreator("X", "1")``, ``getCreator``: a
route only that release's code takes), and for the constructions of a class (``new X(...)``, ``new ns::X``,
``std::make_unique<X>(...)``, ``std::make_shared<X>``: what ``kind="new"`` calls are in live code), which tell of a
plugin class only code for another release creates (:mod:`trtlint.pipeline.oldrelease`). Never raises: a libclang
without the entry point gives nothing."""

from __future__ import annotations

import ctypes
import re
from typing import Any

from trtlint.base.facts import InactiveCode, Span

_REGISTRATION = re.compile(r"\bREGISTER_TENSORRT_PLUGIN\s*\(\s*([\w:]+)\s*\)|\bregisterCreator\s*\(\s*[*&]?\s*(?:new\s+)?([\w:]+)")
_CLASS = re.compile(r"\b(?:class|struct)\s+(\w+)\s*(?:final\s*)?:\s*(?:(?:public|protected|private|virtual)\s+)*"
                    r"(?:nvinfer1\s*::\s*)?I\w*Plugin\w*\b")
# a registry lookup by literal name and version: `getPluginCreator("X", "1"[, ns])`, TensorRT 10's `getCreator`
_LOOKUP = re.compile(r'\b(getPluginCreator|getCreator)\s*\(\s*"([^"\\]+)"\s*(?:,\s*"([^"\\]*)")?')
_HINT = re.compile(r"Plugin|PLUGIN|registerCreator|getCreator")
# a construction of a class by name: `new X`, `new ns::X(...)`, `make_unique<X>`, `std::make_shared<ns::X>`
CONSTRUCTION = re.compile(r"\bnew\s+(?:::\s*)?(?:\w+\s*::\s*)*([A-Za-z_]\w*)\b"
                          r"|\bmake_(?:unique|shared)\s*<\s*(?:::\s*)?(?:\w+\s*::\s*)*([A-Za-z_]\w*)\s*>")
_NOT_CLASS = frozenset({"char", "int", "float", "double", "bool", "short", "long", "unsigned", "signed", "void",
                        "auto", "const", "volatile", "uint8_t", "int8_t", "int32_t", "uint32_t", "int64_t",
                        "uint64_t", "size_t", "half", "nothrow"})
_BOUND: dict[str, Any] = {}


def _skipped_ranges(ci, tu, path: str) -> list[tuple[int, int]]:
    """(first line, last line) of each range of ``path`` the preprocessor skipped in ``tu``."""
    lib = ci.conf.lib
    fn = _BOUND.get("fn")
    if fn is None:

        class _RangeList(ctypes.Structure):
            _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]

        fn = lib.clang_getSkippedRanges
        fn.argtypes = [ci.TranslationUnit, ctypes.c_void_p]
        fn.restype = ctypes.POINTER(_RangeList)
        lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
        _BOUND["fn"] = fn
    f = tu.get_file(path)
    got = fn(tu, f)
    if not got:
        return []
    try:
        return [(got.contents.ranges[i].start.line, got.contents.ranges[i].end.line) for i in range(got.contents.count)]
    finally:
        lib.clang_disposeSourceRangeList(got)


def inactive_plugin_code(ci, tu, path: str, rel: str, text: str) -> tuple[InactiveCode, ...]:
    """The registrations, plugin/creator class heads and registry lookups in the branches of ``path`` (the unit's own file, text
    ``text``) that ``tu`` did not compile, and the constructions of classes there (what ``new``/``make_unique``
    names)."""
    hinted = _HINT.search(text) is not None
    if not hinted and "new" not in text and "make_" not in text:
        return ()
    try:
        ranges = _skipped_ranges(ci, tu, path)
    except Exception:  # noqa: BLE001 - a libclang without the entry point, or another ABI: nothing is known
        return ()
    if not ranges:
        return ()
    lines = text.splitlines()
    out: list[InactiveCode] = []
    for first, last in ranges:
        if first < 1 or first > len(lines):
            continue
        directive = " ".join(lines[first - 1].split())
        for n in range(first + 1, min(last, len(lines)) + 1):
            line = lines[n - 1]
            for m in CONSTRUCTION.finditer(line):
                name = m.group(1) or m.group(2)
                if name not in _NOT_CLASS and "//" not in line[: m.start()]:
                    out.append(InactiveCode("construction", name, Span(rel, n, m.start() + 1), directive, first))
            if not hinted or not _HINT.search(line):
                continue
            for m in _REGISTRATION.finditer(line):
                name = (m.group(1) or m.group(2)).split("::")[-1]
                out.append(InactiveCode("registration", name, Span(rel, n, m.start() + 1), directive, first))
            for m in _CLASS.finditer(line):
                out.append(InactiveCode("class", m.group(1), Span(rel, n, m.start() + 1), directive, first))
            for m in _LOOKUP.finditer(line):
                if "//" not in line[: m.start()]:
                    out.append(InactiveCode("lookup", m.group(2), Span(rel, n, m.start() + 1), directive, first,
                                            version=m.group(3), call=m.group(1)))
    return tuple(dict.fromkeys(out))
