"""Per-file text-scan results, kept by content digest in ``.trtlint_cache/v<N>/scans-<version>.pkl``.

A warm run needs, for every C++ file, whether it can hold a plugin fact (``has_plugin_marker``), its
googletest cases, the identifiers of its ``#if`` lines (optional-feature macros) and the names its ``#include``
lines write (which headers no unit includes: :mod:`trtlint.pipeline.unincluded`), the classes it defines with
their bases (a file deriving a project plugin base is parsed: :func:`project_plugin_classes`), for every source file
whether it holds a ``trtlint:`` comment (or, C++, a clang-tidy ``NOLINT`` marker), and for C++ and Python files the builder preview features they turn on
(TRT213 asks; reading every source file again for it cost a one-file re-run ~30 ms). These are pure functions of a file's bytes; this module remembers
them by ``(path, digest)`` so a warm run reads no file it has not changed (discovery already reuses the
digests of unchanged files, see ``stats.json``). A changed digest is a miss: the file is read and scanned
again. The version in the file name is a digest of the scanning code, so a change to it starts afresh.

The file is read with the restricted unpickler of :mod:`trtlint.store.cache` (fact dataclasses only).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import pickle
import re
import tempfile
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from trtlint.base import safeio
from trtlint.base.unpickle import safe_loads
from trtlint.frontends import SourceFile
# the plugin-marker test lives with the frontends (the C++ frontend's kept walk from a cache entry reads it too)
from trtlint.frontends.markers import MARKER_LITERALS, has_plugin_marker  # noqa: F401

from .profilescan import LITERALS as PROFILE_LITERALS, UNKNOWN, profile_entries

CPP_KINDS = ("cpp", "cuda", "header")
SUPPRESSIBLE = ("cpp", "cuda", "header", "python", "cmake", "yaml")
MAX_SEARCH_BYTES = 1 << 20  # larger files are generated data: not scanned for suppressions

# found from the '#' (a literal the regex engine searches for fast), then checked to start its line: over
# TensorRT OSS's 250 MB of C++ (mostly generated cubin arrays) 0.1 s, against 1.4 s for a `^`-anchored pattern
_PP_COND = re.compile(rb"#[ \t]*(?:if|ifdef|ifndef|elif)\b([^\n]*)")
_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")



# what a macro that writes a plugin or creator class spells: its registration, its name/type getters, its
# factory, its interface. A macro that only names a PluginField type (Edge-LLM's SPECIALIZE_TO_FIELD_TYPE) is no
# such macro: counting it made every C++ file be read again for its uses (+0.4 s on a cold Edge-LLM run)
_CLASS_MARKERS = (b"REGISTER_TENSORRT_PLUGIN", b"getPluginName", b"getPluginType", b"createPlugin", b"IPluginV",
                  b"IPluginCreator")

# a function-like `#define` with its continuation lines: the macro's name and its replacement text
_DEFINE_FN = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)


def marker_macros(data: bytes) -> tuple[str, ...]:
    """The function-like macros a C++ file defines whose replacement writes a plugin or creator class (holds one
    of :data:`_CLASS_MARKERS`): a project's own macro that writes a creator class and its
    REGISTER_TENSORRT_PLUGIN, or a plugin's methods. A file that only
    uses such a macro holds no marker of its own, yet the expansion puts plugin facts in it (see
    :meth:`TextScans.uses_any`). Only a file with a marker can define one, so the others cost one test."""
    if b"define" not in data or not has_plugin_marker(data):
        return ()
    out: dict[str, None] = {}
    for m in _DEFINE_FN.finditer(data):
        if any(lit in m.group(2) for lit in _CLASS_MARKERS):
            out.setdefault(m.group(1).decode("ascii"), None)
    return tuple(out)


# the head of a class definition with a base clause: `class|struct` up to its `{` (a `;` first: a declaration, no
# definition). A text scan: a `class` keyword in a template parameter list starts a head too (`template <class T>
# struct X : Y {`: the split below finds `X`), and a head that is no class's (`template <class T> A<T>::A() : m(0)
# {`) is dropped for the parenthesis left in its name part. Two patterns that start with their literal (the regex
# engine searches for it fast), the word boundary tested after: one `\b(?:class|struct)` pattern took 0.32 s over
# Tencent/Forward's 27 MB of C++, these 0.05 s
_CLASS_HEADS = (re.compile(rb"class\s+([^;{}:]{1,300}:[^;{}]{0,600})\{"),
                re.compile(rb"struct\s+([^;{}:]{1,300}:[^;{}]{0,600})\{"))
_HEAD_ATTRS = re.compile(rb"\b(?:__attribute__\s*\(\(.*?\)\)|alignas\s*\([^()]*\)|__declspec\s*\([^()]*\))|\[\[.*?\]\]")
_HEAD_SPLIT = re.compile(rb"(?<!:):(?!:)")
_ANGLES = re.compile(rb"<[^<>]*>")
_PARENS = re.compile(rb"\([^()]*\)")
_HEAD_WORDS = frozenset((b"final", b"public", b"protected", b"private", b"virtual", b"class", b"struct", b"typename"))
# the TensorRT interfaces a plugin or a creator class implements (TensorRT 5 to 10): IPluginV2*, IPluginV3*,
# IPluginCreator*, the legacy IPlugin / IPluginExt; not a network's IPluginV2Layer / IPluginV3Layer
_PLUGIN_IFACE = re.compile(r"IPlugin(?:V\d(?!\w*Layer$)\w*|Creator\w*|Ext)?")


def _strip_nested(rx, text: bytes) -> bytes:
    for _ in range(8):  # innermost first: `A<B<C>>` in two steps
        text, n = rx.subn(b"", text)
        if not n:
            break
    return text


def class_bases(data: bytes) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(name, bases)`` of every class or struct the file defines with a base clause, in order, each base as its
    last name (``public nvinfer1::IPluginV2Ext`` -> ``IPluginV2Ext``, ``ns::Base<T>`` -> ``Base``): what
    :func:`project_plugin_classes` closes over. A text scan (every branch of an ``#if`` counts, comments too): an
    extra name only parses a file more."""
    if b"class" not in data and b"struct" not in data:
        return ()
    out: dict[str, tuple[str, ...]] = {}
    heads = sorted((m.start(), m.group(1)) for rx in _CLASS_HEADS for m in rx.finditer(data)
                   if m.start() == 0 or not (data[m.start() - 1:m.start()].isalnum() or data[m.start() - 1] == 95))
    for _at, head in heads:
        parts = _HEAD_SPLIT.split(_HEAD_ATTRS.sub(b" ", head), 1)
        if len(parts) != 2:
            continue
        name_part = _strip_nested(_ANGLES, parts[0])
        if b"(" in name_part or b"=" in name_part:
            continue  # no class's name: a constructor's initializer list, a default argument
        names = [w for w in _IDENT.findall(name_part) if w not in _HEAD_WORDS]
        if not names:
            continue
        bases: dict[str, None] = {}
        for base in _strip_nested(_PARENS, _strip_nested(_ANGLES, parts[1])).split(b","):
            words = [w for w in _IDENT.findall(base) if w not in _HEAD_WORDS]
            if words:
                bases.setdefault(words[-1].decode("ascii", "replace"), None)
        if bases:
            out.setdefault(names[-1].decode("ascii", "replace"), tuple(bases))
    return tuple(out.items())


def project_plugin_classes(per_file) -> set[str]:
    """The names of the project's classes on a TensorRT plugin or creator interface: those whose bases name one
    (:data:`_PLUGIN_IFACE`), and, to a fixed point, those deriving such a class (a project's ``BasePlugin`` and
    the plugins written on it, its base of a base). ``per_file``: the files' :func:`class_bases`. By name alone:
    a class of another program of the same name counts too (a file is parsed more, never less)."""
    derives: dict[str, set[str]] = {}
    for pairs in per_file:
        for name, bases in pairs:
            derives.setdefault(name, set()).update(bases)
    out = {n for n, bases in derives.items() if any(_PLUGIN_IFACE.fullmatch(b) for b in bases)}
    grew = True
    while grew:
        new = {n for n, bases in derives.items() if n not in out and not bases.isdisjoint(out)}
        out |= new
        grew = bool(new)
    return out


def calls_any(data: bytes, macros: tuple[str, ...]) -> bool:
    """Whether ``data`` calls one of ``macros`` (``NAME(``): the text test of :meth:`TextScans.uses_any`."""
    if not macros:
        return False
    return _calls_rx(tuple(macros)).search(data) is not None


@functools.lru_cache(maxsize=8)
def _calls_rx(macros: tuple[str, ...]):
    return re.compile(rb"\b(?:" + b"|".join(re.escape(m.encode("ascii")) for m in macros) + rb")\s*\(")


@dataclasses.dataclass(frozen=True)
class ProjectMarkers:
    """What, besides a plugin marker of its own (:func:`has_plugin_marker`), makes a C++ file one that can hold plugin
    facts: a call of one of the project's marker macros (:func:`marker_macros`: a macro that writes a creator class
    and its REGISTER_TENSORRT_PLUGIN), or a class deriving one of the project's plugin classes
    (:func:`project_plugin_classes`: a plugin written on the project's own BasePlugin, its methods in the class).
    The one decision a full run (``pipeline/run.py``) and the editor's session (``editor/session.py``) make."""

    macros: tuple[str, ...] = ()  # the project's marker macros, sorted
    classes: frozenset = frozenset()  # the project's plugin and creator classes (names)

    @classmethod
    def of(cls, macro_defs, bases_per_file) -> "ProjectMarkers":
        """From the C++ files' :func:`marker_macros` and :func:`class_bases` (iterables of them)."""
        macros: set[str] = set()
        for defs in macro_defs:
            macros.update(defs)
        return cls(tuple(sorted(macros)), frozenset(project_plugin_classes(bases_per_file)))

    def derives(self, bases) -> bool:
        """Whether a class of a file whose :func:`class_bases` are ``bases`` derives a project plugin class."""
        return bool(self.classes) and any(not self.classes.isdisjoint(b) for _n, b in bases)

    def plugin_file(self, marker: bool, bases, calls: Callable[[tuple[str, ...]], bool]) -> bool:
        """Whether a C++ file is parsed eagerly: its own marker, a class deriving a project plugin class, or a call
        of a project marker macro (``calls(macros)``, asked last: it may read the file)."""
        return marker or self.derives(bases) or (bool(self.macros) and calls(self.macros))

    def shareable(self, marker: bool, bases) -> bool:
        """Whether a header may be left to one of its includers to walk (a shared header): no marker, and no class
        deriving a project plugin class (its declarations feed a plugin class)."""
        return not marker and not self.derives(bases)


# callees that are never project functions: no need to look for their definitions


# a clang-tidy marker that can be trtlint's: bare (every check), or its list names a `trtlint-` check or `*`
_OUR_NOLINT = re.compile(rb"NOLINT(?:NEXTLINE|BEGIN|END)?(?:(?![\w(-])|\([^)\n]*(?:trtlint-|\*))")


def has_our_nolint(data: bytes) -> bool:
    """Whether a C++ file holds a NOLINT marker that may suppress a trtlint finding (one naming only other tools'
    checks, `NOLINT(bugprone-*)`, cannot): a codebase clang-tidy lints is not read again on every run for them."""
    return b"NOLINT" in data and _OUR_NOLINT.search(data) is not None


def read_bytes(f: SourceFile) -> bytes:
    try:
        return safeio.read_bytes(f.path, limit=safeio.SOURCE_LIMIT)
    except OSError:
        return b""


def pp_idents(data: bytes) -> tuple[str, ...]:
    """Every identifier written in the file's ``#if``/``#ifdef``/``#ifndef``/``#elif`` lines, in order."""
    out: dict[str, None] = {}
    for m in _PP_COND.finditer(data):
        at = m.start()
        if data[data.rfind(b"\n", 0, at) + 1 : at].strip(b" \t"):
            continue  # not a directive: something other than blanks precedes the '#' on its line
        for ident in _IDENT.findall(m.group(1)):
            out.setdefault(ident.decode(), None)
    return tuple(out)


# an ``#include`` line: the name as written between quotes or angle brackets (a computed ``#include MACRO``: its
# macro's name, marked with a leading '#': what it names is not known from the text)
_INCLUDE = re.compile(rb"#[ \t]*include[ \t]*(?:[<\"]([^>\"\n]+)[>\"]|([A-Za-z_]\w*))")


def include_names(data: bytes) -> tuple[str, ...]:
    """The names of the file's ``#include`` lines as written (``tkDNN/foo.h``, ``../common/bar.h``), in order, once
    each; a computed include (``#include SOME_HEADER``) as ``#SOME_HEADER``. Every branch of an ``#if`` counts
    (a text scan: what could be included, never less)."""
    if b"include" not in data:
        return ()
    out: dict[str, None] = {}
    for m in _INCLUDE.finditer(data):
        at = m.start()
        if data[data.rfind(b"\n", 0, at) + 1 : at].strip(b" \t"):
            continue  # not a directive: something other than blanks precedes the '#' on its line
        name = m.group(1).strip() if m.group(1) is not None else b"#" + m.group(2)
        out.setdefault(name.decode("utf-8", "replace"), None)
    return tuple(out)


_PREVIEW = re.compile(rb"(?:setPreviewFeature|set_preview_feature)\s*\(\s*(?:[\w:.]*?[:.])?k?([A-Z][A-Z0-9_]+)\s*,"
                      rb"\s*(?:true|True|1)\s*\)")


def preview_switches(data: bytes) -> tuple[tuple[str, int, int, int], ...]:
    """``(feature, line, col, end_col)`` of every builder preview feature a C++ or Python file turns on:
    ``setPreviewFeature(PreviewFeature::kX, true)`` / ``set_preview_feature(trt.PreviewFeature.X, True)``."""
    if b"review" not in data:
        return ()
    out = []
    for m in _PREVIEW.finditer(data):
        line = data.count(b"\n", 0, m.start()) + 1
        col = m.start() - (data.rfind(b"\n", 0, m.start()) + 1) + 1
        out.append((m.group(1).decode("ascii", "replace"), line, col, col + len(m.group(0))))
    return tuple(out)


# evidence that a program parses models (an ONNX, UFF or Caffe parser hands a model's fields to the creators it
# finds) or loads a plugin library at run time (a library loaded so that others' models reach its creators)
_MODEL_PARSER = re.compile(
    rb"\b(?:NvOnnxParser\w*|nvonnxparser|NvUffParser|NvCaffeParser|nvparsers|nvcaffe_parser|OnnxParser|UffParser|"
    rb"CaffeParser|create\w*Parser|onnx2trt|onnx_tensorrt|onnx-tensorrt|network_from_onnx\w*|NetworkFromOnnx\w*|"
    rb"parse_from_file|parseFromFile|trtexec)\b")
_PLUGIN_LOADER = re.compile(
    rb"\b(?:dlopen|LoadLibrary\w*|CDLL|cdll|PyDLL|load_library|loadLibrary|load_plugins?|loadPlugins?)\b|"
    rb"--(?:plugins|staticPlugins|dynamicPlugins|setPluginsToSerialize)\b")
# a literal each match of the pattern holds, searched first (the regexes alone cost 2.9 s cold over the 57 MB of
# FasterTransformer's sources; these searches 0.45 s, and leave a regex to one file in four)
_PARSER_LITERALS = (b"arse", b"nnx", b"trtexec")
_LOADER_LITERALS = (b"dlopen", b"oadLibrar", b"DLL", b"dll", b"oad_librar", b"oad_plugin", b"oadPlugin", b"Plugins",
                    b"-plugins")
_MAX_MODEL_IO = 8  # per file and kind: the evidence a message names, not a census


def model_io(data: bytes, parts=None) -> tuple[tuple[str, int, str], ...]:
    """``(kind, line, text)`` of what in a file says its program takes plugin fields from outside the tree's own
    code: ``"parser"`` (the file uses a model parser: ``NvOnnxParser.h``, ``nvonnxparser``, ``trt.OnnxParser``,
    the UFF and Caffe parsers, onnx-tensorrt, trtexec) and ``"loader"`` (it loads a library at run time:
    ``dlopen``, ``ctypes.CDLL``, ``load_library``, ``trtexec --plugins``), and ``"profile"``: the shapes an
    optimization profile it sets gives an input (:mod:`.profilescan`). A text test (comments count too): it
    errs toward evidence, which keeps a finding. ``parts``: :func:`_text_parts` of ``data``, when known."""
    if len(data) > MAX_SEARCH_BYTES:
        # (larger files are generated data); a profile set there is not read: an unknown one
        return (("profile", 1, "\t" + UNKNOWN),) if b"setDimensions" in data or b"set_shape" in data else ()
    out = []
    parts = list(parts) if parts is not None else list(_text_parts(data))
    for kind, rx, lits in (("parser", _MODEL_PARSER, _PARSER_LITERALS), ("loader", _PLUGIN_LOADER, _LOADER_LITERALS)):
        n = 0
        for start, part in parts:
            if n >= _MAX_MODEL_IO or not any(lit in part for lit in lits):
                continue
            for m in rx.finditer(part):
                if n >= _MAX_MODEL_IO:
                    break
                n += 1
                out.append((kind, data.count(b"\n", 0, start + m.start()) + 1, m.group(0).decode("ascii", "replace")))
    # the profile scan reads the whole text (its line numbers), but only where the code parts name a profile: its
    # literal searches over the arrays of constants cost a cold run of Edge-LLM 0.3 s (no name is written in them)
    if any(lit in part for _start, part in parts for lit in PROFILE_LITERALS):
        out.extend(profile_entries(data))
    return tuple(out)


_PART = 8192
# what an array of integer constants is written with: hex and decimal digits, the 0x prefix, integer suffixes,
# separators, braces and blanks. No name, directive, string or call is written with these alone
_CONSTANTS = b"0123456789abcdefABCDEFxXuUlL,;{} \t\r\n"


def code_text(data: bytes, parts=None) -> bytes:
    """The file's text without its parts that are arrays of hex constants (:func:`_text_parts`), the kept parts
    joined as they were (each ends a line): a scan for names, markers or directives finds what it finds in the
    whole file, since no name or directive is written inside such an array; line numbers are not kept.
    ``parts``: :func:`_text_parts` of ``data``, when known."""
    parts = list(_text_parts(data)) if parts is None else parts
    if len(parts) == 1 and parts[0][0] == 0:
        return parts[0][1]
    return b"".join(p for _o, p in parts)


def _text_parts(data: bytes):
    """``(offset, part)`` of a file's line-aligned parts of ~8 KB, leaving out those written only with the
    characters of an array of integer constants (:data:`_CONSTANTS`: a generated cubin source's ``0x7f, 0x45,`` or
    ``0x5f315f6c616e7265ULL,``), where no identifier, directive or marker can be: the literal searches over
    Edge-LLM's ~70 MB of them took 1.1 s of a cold run. A small file is one part."""
    if len(data) <= 4 * _PART:
        yield 0, data
        return
    i, n = 0, len(data)
    while i < n:
        j = data.find(b"\n", i + _PART)
        j = n if j < 0 else j + 1
        part = data[i:j]
        if part.translate(None, _CONSTANTS):  # something but constants, separators and blanks
            yield i, part
        i = j


def _scan_version() -> str:
    here = Path(__file__).parent
    h = hashlib.sha256(b"scan-4")  # 2: a C++ file's NOLINT marker counts as a suppression comment; 3: model_io; 4: profiles
    for p in (here / "scancache.py", here / "profilescan.py", here.parent / "frontends" / "testlists.py",
              here.parent / "frontends" / "markers.py"):
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:16]


class ScanResult(NamedTuple):
    """What the text scans found in one file (kept in the scan cache as a plain tuple of these nine)."""

    marker: bool  # has_plugin_marker (C++ kinds; False for the others)
    has_trtlint_comment: bool  # a `trtlint:` comment (C++ kinds: or a NOLINT marker), in a file of at most MAX_SEARCH_BYTES
    gtest_cases: tuple  # googletest cases (C++ units)
    pp_idents: tuple[str, ...]  # identifiers of the #if lines (C++ kinds)
    preview_switches: tuple  # preview_switches (C++ kinds and Python)
    marker_macros: tuple[str, ...] = ()  # marker_macros (C++ kinds)
    includes: tuple[str, ...] = ()  # include_names (C++ kinds): which headers the file can pull in
    model_io: tuple = ()  # model_io (every kind but ONNX models)
    class_bases: tuple = ()  # class_bases (C++ kinds): which classes the file defines on which bases


class TextScans:
    """``scan(f)`` -> a :class:`ScanResult`; the first call for a file whose digest is unknown reads it (once)
    and scans it. ``save()`` writes back what changed."""

    def __init__(self, cache_dir: Optional[Path], marker: Callable[[bytes], bool] = has_plugin_marker,
                 gtests: Optional[Callable] = None):
        if gtests is None:  # (imported here: the googletest scan's module imports the fact vocabulary)
            from trtlint.frontends.testlists import gtest_cases as gtests
        self.marker = marker
        self.gtests = gtests
        self.path = cache_dir / f"scans-{_scan_version()}.pkl" if cache_dir is not None else None
        self.entries: dict[str, tuple] = {}
        self.dirty = False
        self.reads = 0
        if self.path is not None:
            try:
                data = safe_loads(safeio.read_bytes(self.path, limit=safeio.CACHE_LIMIT))
                if isinstance(data, dict):
                    self.entries = data
            except Exception:  # a corrupt or planted file is a miss (the unpickler refuses every global)
                self.entries = {}
        self.used: set[str] = set()

    def scan(self, f: SourceFile) -> ScanResult:
        key = f"{f.rel}\0{f.digest}"
        self.used.add(key)
        hit = self.entries.get(key)
        if isinstance(hit, tuple) and len(hit) == len(ScanResult._fields):
            return ScanResult(*hit)
        data = self.read(f)
        if f.kind in CPP_KINDS:
            # the scans whose answers carry no line number read the file without its arrays of constants; those
            # that report lines read the whole file only when what they look for is there at all
            parts = list(_text_parts(data))
            code = code_text(data, parts)
            entry = (
                bool(self.marker(code)),
                (b"trtlint:" in code or has_our_nolint(code)) and len(data) <= MAX_SEARCH_BYTES,
                tuple(self.gtests(f.rel, data)) if f.kind != "header" and b"TEST" in code else (),
                pp_idents(code),
                preview_switches(data) if b"review" in code else (),
                marker_macros(code),
                include_names(code),
                model_io(data, parts),
                class_bases(code),
            )
        else:
            entry = (False, b"trtlint:" in data and len(data) <= MAX_SEARCH_BYTES, (), (),
                     preview_switches(data) if f.kind == "python" else (), (), (),
                     model_io(data) if f.kind != "onnx" else (), ())
        self.entries[key] = entry  # stored as a plain tuple (the cache's unpickler loads no class of ours)
        self.dirty = True
        return ScanResult(*entry)

    def uses_any(self, f: SourceFile, macros: tuple[str, ...]) -> bool:
        """Whether the file calls one of ``macros`` (the project's :func:`marker_macros`): such a file can hold
        plugin facts without a marker of its own. Remembered by file digest and the macro set."""
        if not macros:
            return False
        key = f"{f.rel}\0{f.digest}\0uses\0{chr(0).join(macros)}"
        self.used.add(key)
        hit = self.entries.get(key)
        if isinstance(hit, bool):
            return hit
        found = calls_any(self.read(f), macros)
        self.entries[key] = found
        self.dirty = True
        return found

    def project_markers(self, files, service: Optional[Callable[[], None]] = None) -> ProjectMarkers:
        """The project's marker macros and plugin classes (:class:`ProjectMarkers`), over its C++ files' scans
        (``service`` is called before each file: a cold scan of a large tree takes seconds)."""
        defs, bases = [], []
        for f in files:
            if f.kind in CPP_KINDS:
                if service is not None:
                    service()
                scan = self.scan(f)
                defs.append(scan.marker_macros)
                bases.append(scan.class_bases)
        return ProjectMarkers.of(defs, bases)

    def plugin_file(self, f: SourceFile, markers: ProjectMarkers) -> bool:
        """Whether the run parses the C++ file eagerly (:meth:`ProjectMarkers.plugin_file`, from its scan; the
        macro calls read the file once, then are remembered: :meth:`uses_any`)."""
        scan = self.scan(f)
        return markers.plugin_file(scan.marker, scan.class_bases, lambda macros: self.uses_any(f, macros))

    def shareable(self, f: SourceFile, markers: ProjectMarkers) -> bool:
        """Whether a header may be left to one includer to walk (:meth:`ProjectMarkers.shareable`)."""
        scan = self.scan(f)
        return markers.shareable(scan.marker, scan.class_bases)

    def read(self, f: SourceFile) -> bytes:
        self.reads += 1
        return read_bytes(f)

    def save(self, prune: bool) -> None:
        """Write the entries back; with ``prune`` (a run over the whole project) only those used in this run."""
        if self.path is None:
            return
        if prune and set(self.entries) != self.used:
            self.entries = {k: v for k, v in self.entries.items() if k in self.used}
            self.dirty = True
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            for old in self.path.parent.glob("scans-*.pkl"):  # other scanner versions
                if old != self.path:
                    old.unlink()
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-", suffix=".pkl")
            with os.fdopen(fd, "wb") as fh:
                fh.write(pickle.dumps(self.entries, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, self.path)
        except OSError:
            pass


def feature_macros(files: list[SourceFile], patterns, scans=None, service=None) -> tuple[str, ...]:
    """Optional-feature macros (profile ``feature_macros`` patterns, e.g. ``CUTE_DSL_*_ENABLED``) tested in the
    project's C++ ``#if``/``#ifdef`` lines: the production build defines them, so trtlint does too and
    analyses the code that is compiled instead of the fallback stubs."""
    import fnmatch

    scans = scans if scans is not None else TextScans(None)
    rx = re.compile("|".join(fnmatch.translate(p) for p in patterns))
    out: set[str] = set()
    for f in files:
        if f.kind not in ("cpp", "cuda", "header"):
            continue
        if service is not None:
            service()
        for name in scans.scan(f).pp_idents:
            if rx.match(name):
                out.add(name)
    return tuple(sorted(out))
