"""What a finding is about, in the terms a repro needs: the (name, version, namespace) a route asks for, the
node's domain and attributes, the creator the project registers (fields, source files), the plugin class
whose hot path is flagged, the .cu file that is not built. Read from the :class:`ProjectIndex` only."""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from trtlint.base.diagnostics import Diagnostic


class Unresolved(Exception):
    """The finding could not be matched to the current source (the reason is the message)."""


@dataclass
class Attr:
    name: str
    type: Optional[str]  # "INT" | "FLOAT" | "STRING" | "INTS" | "FLOATS" | "STRINGS" | None (not known)
    value: Any = None  # a Python value when the source has a literal, else None
    source: Optional[str] = None  # the value as written


@dataclass
class CreatorInfo:
    name: Optional[str]
    version: Optional[str]
    namespace: str
    qualname: str
    family: str
    fields: list[tuple[str, Optional[str]]] = field(default_factory=list)  # (name, PluginFieldType)
    serialized: list[tuple[str, Optional[str]]] = field(default_factory=list)
    path: str = ""


@dataclass
class Subject:
    kind: str  # "route" | "hotpath" | "plugin" | "cuda-file"
    code: str
    name: Optional[str] = None  # plugin/creator name asked for (routes) or the plugin's name
    version: Optional[str] = None
    namespace: Optional[str] = None
    route: Optional[str] = None  # "onnx" | "lookup" | "route-table" | "route-call"
    domain: Optional[str] = None
    attrs: list[Attr] = field(default_factory=list)
    flagged_attr: Optional[str] = None  # TRT103: the attribute the finding is about
    creator: Optional[CreatorInfo] = None  # the project's creator of that name (or the closest one)
    plugin_class: Optional[str] = None  # hot path: the plugin class
    hot_call: Optional[str] = None  # hot path: the flagged call
    sources: list[str] = field(default_factory=list)  # project-relative C++/CUDA translation units involved
    symbols: list[str] = field(default_factory=list)  # cuda-file: functions the file defines

    def to_dict(self) -> dict:
        return asdict(self)


#: PluginFieldType (as the C++ frontend records it) -> the ONNX attribute type the parser converts to it
_FIELD_TO_ATTR = {
    "kINT8": "INT", "kINT16": "INT", "kINT32": "INT", "kINT64": "INT", "kUINT8": "INT", "kBOOL": "INT",
    "kFLOAT16": "FLOAT", "kFLOAT32": "FLOAT", "kFLOAT64": "FLOAT", "kBF16": "FLOAT", "kFP8": "FLOAT",
    "kCHAR": "STRING", "kDIMS": "INTS",
}


def _field_attrs(c) -> list["Attr"]:
    """A creator's declared fields as node attributes (values unknown: the repro uses typed placeholders)."""
    out = []
    for f in c.fields:
        t = (f.type or "").split("::")[-1]
        out.append(Attr(f.name, _FIELD_TO_ATTR.get(t), None, None))
    return out


def _literal(text: Optional[str]) -> Any:
    if text is None:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _creator_info(c) -> CreatorInfo:
    return CreatorInfo(
        name=c.plugin_name,
        version=c.plugin_version,
        namespace=c.plugin_namespace,
        qualname=c.qualname,
        family=c.cls.family,
        fields=[(f.name, f.type) for f in c.fields],
        serialized=[(f.name, f.type) for f in c.serialized],
        path=c.cls.span.path,
    )


def _tu_paths(index, qualnames) -> list[str]:
    """Translation units (not headers) that define methods of these classes."""
    out: list[str] = []
    for q in qualnames:
        for fn in index.class_methods(q):
            ff = index.files.get(fn.span.path)
            if ff is not None and ff.kind in ("cpp", "cuda") and fn.span.path not in out:
                out.append(fn.span.path)
    return out


def _plugin_for(index, name: Optional[str]):
    return next((p for p in index.plugins if name and p.plugin_name == name), None)


def resolve(d: Diagnostic, index) -> Subject:
    code = d.code.upper()
    if code in ("TRT101", "TRT102", "TRT103", "TRT104", "TRT105", "TRT106"):
        return _route_subject(d, index)
    if code.startswith("TRT3"):
        return _hot_subject(d, index)
    if code == "TRT401":
        return _cuda_file_subject(d, index)
    return _plugin_subject(d, index)


def _route_subject(d: Diagnostic, index) -> Subject:
    from ..checks.contract._routes import all_requests

    here = (d.span.path, d.span.line)
    cands = []
    for r in all_requests(index):
        if (r.span.path, r.span.line) == here or (r.version_span and (r.version_span.path, r.version_span.line) == here):
            cands.append((r, None))
            continue
        for a in r.attrs:
            if (a.span.path, a.span.line, a.span.col) == (d.span.path, d.span.line, d.span.col) or (
                (a.span.path, a.span.line) == here and d.symbol == f"{r.name}.{a.name}"
            ):
                cands.append((r, a.name))
    if not cands:
        raise Unresolved(f"no plugin route at {d.span.path}:{d.span.line} in the current source")
    sym = d.symbol.split(".", 1)[0] if d.symbol else ""
    r, flagged = next(((r, a) for r, a in cands if r.name == sym), cands[0])
    if flagged is None and d.symbol.startswith(r.name + "."):
        flagged = d.symbol[len(r.name) + 1 :]
    domain = None
    if r.kind == "onnx":
        e = next((e for e in index.emissions if e.span == r.span), None)
        domain = e.domain if e is not None else None
    creators = index.creators_named(r.name) or [c for n in index.closest_names(r.name, 1) for c in index.creators_named(n)]
    creator = creators[0] if creators else None
    plugin = _plugin_for(index, creator.plugin_name if creator else None)
    qns = [q for q in (creator.qualname if creator else None, plugin.qualname if plugin else None) if q]
    return Subject(
        kind="route",
        code=d.code,
        name=r.name,
        version=r.version,
        namespace=r.namespace,
        route=r.kind,
        domain=domain,
        attrs=[Attr(a.name, a.type, _literal(a.value), a.value) for a in r.attrs],
        flagged_attr=flagged,
        creator=_creator_info(creator) if creator else None,
        plugin_class=plugin.qualname if plugin else None,
        sources=_tu_paths(index, qns),
    )


def _hot_subject(d: Diagnostic, index) -> Subject:
    cls_name = d.symbol.split(":", 1)[0] if d.symbol else ""
    plugin = next((p for p in index.plugins if p.cls.name == cls_name), None)
    if plugin is None:
        # a hot-path rule whose symbol has another shape: the plugin whose enqueue is a related location, or
        # whose method holds the finding
        spots = {(d.span.path, d.span.line)} | {(r.span.path, r.span.line) for r in d.related}
        plugin = next(
            (p for p in index.plugins for fn in index.find_method(p.qualname, "enqueue") if (fn.span.path, fn.span.line) in spots),
            None,
        ) or next(
            (p for p in index.plugins for fn in index.class_methods(p.qualname)
             if fn.span.path == d.span.path and fn.span.line <= d.span.line <= max(fn.span.end_line, fn.span.line)),
            None,
        )
    if plugin is None:
        raise Unresolved(f"no plugin class '{cls_name or '?'}' in the current source")
    callee = d.symbol.split(":")[1] if d.symbol.count(":") >= 2 else None
    creator = next(iter(index.creators_named(plugin.plugin_name or "")), None)
    srcs = _tu_paths(index, [plugin.qualname] + ([creator.qualname] if creator else []))
    for p in [d.span.path] + [r.span.path for r in d.related]:
        ff = index.files.get(p)
        if ff is not None and ff.kind in ("cpp", "cuda") and p not in srcs:
            srcs.append(p)
    return Subject(
        kind="hotpath",
        code=d.code,
        name=plugin.plugin_name,
        version=plugin.plugin_version,
        namespace=creator.plugin_namespace if creator else "",
        creator=_creator_info(creator) if creator else None,
        plugin_class=plugin.qualname,
        hot_call=callee,
        attrs=_field_attrs(creator) if creator else [],
        sources=srcs,
    )


def _cuda_file_subject(d: Diagnostic, index) -> Subject:
    ff = index.files.get(d.span.path)
    if ff is None or ff.kind != "cuda":
        raise Unresolved(f"{d.span.path} is not a CUDA source in the current tree")
    functions = ff.functions
    if not functions:
        functions = _extract_functions(index, d.span.path)
    syms = []
    for fn in functions:
        if fn.span.path == d.span.path and fn.name not in syms and not fn.name.startswith("operator"):
            syms.append(fn.name)
    return Subject(kind="cuda-file", code=d.code, sources=[d.span.path], symbols=syms)


def _plugin_subject(d: Diagnostic, index) -> Subject:
    """A finding inside a plugin or creator class (e.g. TRT202): the class whose method holds the line."""
    here = (d.span.path, d.span.line)
    for info in list(index.plugins) + list(index.creators):
        for fn in index.class_methods(info.qualname):
            if fn.span.path == here[0] and fn.span.line <= here[1] <= max(fn.span.end_line, fn.span.line):
                name = info.plugin_name
                creator = next(iter(index.creators_named(name or "")), None)
                plugin = _plugin_for(index, name)
                qns = [q.qualname for q in (creator, plugin) if q is not None]
                return Subject(
                    kind="plugin",
                    code=d.code,
                    name=name,
                    version=info.plugin_version,
                    namespace=creator.plugin_namespace if creator else "",
                    creator=_creator_info(creator) if creator else None,
                    plugin_class=plugin.qualname if plugin else None,
                    attrs=_field_attrs(creator) if creator else [],
                    flagged_attr=_flagged_field(d, creator, info),
                    sources=_tu_paths(index, qns),
                )
    raise Unresolved(f"no plugin or creator method holds {d.span.path}:{d.span.line} in the current source")


def _extract_functions(index, rel: str) -> tuple:
    """A .cu file with no plugin marker is not extracted by `check` (a cheap text test skips it): run the C++
    frontend on it now for the functions it defines, in a watched child process under the run's limits
    (``file-timeout``, ``worker-memory``), as every parse is; one that exceeds them gives no functions."""
    from ..pipeline.extract import extract_one, make_context
    from ..pipeline.isolated import Stopped, call_limited
    from ..frontends import SourceFile

    s = index.settings
    if s is None:
        return ()
    src = SourceFile(path=(index.root / rel), rel=rel, kind="cuda", digest="")
    try:
        ff = call_limited(extract_one, (src, make_context(s, index.profile, index.root)),
                          float(getattr(s, "file_timeout", 0) or 0), float(getattr(s, "worker_memory", 0) or 0))
    except (Stopped, OSError, ValueError):
        return ()
    return ff.functions


def _flagged_field(d: Diagnostic, creator, info) -> Optional[str]:
    """The field a plugin finding (e.g. TRT202) is about: the symbol's last dotted part, or a quoted name in
    the message that the creator declares or the plugin serializes."""
    import re

    known = {f.name for c in (creator, info) if c is not None for f in list(c.fields) + list(c.serialized)}
    if "." in d.symbol:
        last = d.symbol.rsplit(".", 1)[-1]
        if not known or last in known:
            return last
    for q in re.findall(r"'([^']+)'", d.message):
        if q in known:
            return q
    return None
