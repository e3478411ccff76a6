"""Can data from outside the program reach a creator's ``createPlugin``? (TRT205 / TRT215, issue 31)

A check in ``createPlugin`` on a value it is handed (a field's ``PluginFieldType``, a shape or data type read from
a field, the ``default:`` of a dispatch on one) is a run-time check when a *model* can hand that value: the fields
then come from a file the program is given, not from its code. Which is so when some model-facing route reaches
the creator:

(a) a model route resolved to it: an ONNX emission (``make_node``, ``g.op``, onnxscript, onnx-graphsurgeon
    ``gs.Node`` / ``graph.layer``) or a node of an ``.onnx`` file of the tree;
(b) its program parses models: a file of the program (or of no program) names a model parser (``NvOnnxParser.h``,
    ``nvonnxparser``, ``trt.OnnxParser``, the UFF or Caffe parser, onnx-tensorrt, trtexec): a parser hands a
    model's node attributes to whatever creator the registry holds;
(c) its code is a plugin library for others to load: the unit defining ``createPlugin`` is not held by the tree's
    own executables alone (a library no executable of the tree links, a Makefile's product, a unit no build
    description names: :func:`trtlint.pipeline.buildmodel.executable_units`), or a file of the program hands plugin
    libraries to a tool that builds engines from models (``trtexec --plugins``, ``--staticPlugins``). A program
    that only loads a library itself (``dlopen``, ``ctypes.CDLL``, ``load_library``) and parses no model (b) reaches
    ``createPlugin`` through its own routes alone: loading registers the creators, deserializing an engine calls
    ``deserializePlugin``, and whatever else calls ``createPlugin`` is a route the index holds.

Otherwise only the program's own routes reach it (C++ and Python lookups with their field lists, direct-route
tables and calls). A check on a field's type is then an invariant when every such route passes the checked field
with an accepted type; any check on a value from the fields is one when no route reaches the creator at all
(``createPlugin`` is not called in this program). Each answer is evidence-based in the direction of keeping a
finding: a route whose fields were not all followed, a type not known, a check this module does not read
(``&&``, ``!=``, a field found by name) decide nothing.
"""

from __future__ import annotations

import re
from typing import Optional

from trtlint.index.project_index import scope_of
from ..contract._routes import all_requests, route_creators

_MODEL_KINDS = ("onnx", "model")
# one disjunct of a field-type check: `fields[1].type == PluginFieldType::kINT32` (either side, in parentheses)
_LHS = r"(?P<lhs>[A-Za-z_][\w.>\-]*?(?:\s*\[\s*(?P<idx>\w+)\s*\])?)\s*(?:\.|->)\s*type"
_RHS = r"(?:::)?(?:nvinfer1\s*::\s*)?PluginFieldType\s*::\s*k(?P<ty>[A-Z0-9_]+)"
_TYPE_EQ = re.compile(rf"\s*\(?\s*(?:{_LHS}\s*==\s*{_RHS}|{_RHS.replace('ty>', 'ty2>')}\s*==\s*"
                      rf"{_LHS.replace('lhs>', 'lhs2>').replace('idx>', 'idx2>')})\s*\)?\s*")


def field_type_check(checked: str) -> Optional[tuple[Optional[int], frozenset, str]]:
    """``(field position or None for any field, accepted types, the field as written)`` of a check that only
    compares one field's ``PluginFieldType`` with constants joined by ``||``; None for any other check."""
    e = checked.strip()
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1].strip()
    lhs, idx, types = None, None, set()
    for part in e.split("||"):
        m = _TYPE_EQ.fullmatch(part)
        if m is None:
            return None
        side = re.sub(r"\s+", "", m.group("lhs") or m.group("lhs2"))
        if lhs is not None and side != lhs:
            return None
        lhs = side
        idx = m.group("idx") or m.group("idx2")
        types.add(m.group("ty") or m.group("ty2"))
    if lhs is None:
        return None
    return (int(idx) if idx is not None and idx.isdigit() else None), frozenset(types), lhs


def _type_name(t: Optional[str]) -> Optional[str]:
    """A route's field type as a ``PluginFieldType`` name without its ``k`` (``kINT32``, ``INT32``,
    ``trt.PluginFieldType.INT32``); None when not one."""
    if not t:
        return None
    t = t.rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    if re.fullmatch(r"k[A-Z][A-Z0-9_]*", t):
        t = t[1:]
    return t if re.fullmatch(r"[A-Z][A-Z0-9_]*", t) else None


class Reach:
    """What reaches one creator in one index: ``outside`` why a model can hand it fields (None: only the
    program's own routes), ``routes`` those own routes."""

    def __init__(self, outside: Optional[str], routes: list) -> None:
        self.outside = outside
        self.routes = routes

    def passes(self, pos: Optional[int], types: frozenset) -> Optional[str]:
        """Why every own route passes field ``pos`` (None: every field) with one of ``types``; None when one may not."""
        if self.outside is not None:
            return None
        if not self.routes:
            return "nothing in this program calls (no route reaches the creator, and no model can)"
        for r in self.routes:
            if not _followed(r):
                return None
            fields = r.attrs if pos is None else r.attrs[pos:pos + 1]
            if not fields or any(_type_name(a.type) not in types for a in fields):
                return None
        where = ", ".join(f"{r.span.path}:{r.span.line}" for r in self.routes[:3])
        more = f" and {len(self.routes) - 3} more" if len(self.routes) > 3 else ""
        return (f"only the program's own routes call ({where}{more}; no model can), each passing "
                f"{'every field' if pos is None else f'field {pos}'} as " + " or ".join(f"k{t}" for t in sorted(types)))

    def unreached(self) -> Optional[str]:
        """Why nothing hands the creator fields in this program (no model-facing route, no own route); None if
        something may."""
        if self.outside is None and not self.routes:
            return "nothing in this program calls it (no route reaches the creator, and no model can)"
        return None


def _followed(r) -> bool:
    """Whether a route's field list is known in order: a C++ lookup's fields are the ``PluginField``s its function
    builds after it, in order (the frontend keeps ``open_attrs`` set for them: a collection may also be filled
    elsewhere, which leaves the list empty or adds fields it cannot see; a field added in a branch moves the others,
    so it decides nothing); any other route's list must be closed."""
    if not r.attrs or any(a.conditional for a in r.attrs):
        return False
    return not r.open_attrs or (r.kind == "lookup" and r.form in _CPP_FORMS)


_CPP_FORMS = ("getPluginCreator", "getCreator")


def reach(index, creator_name: str, fn) -> Reach:
    """The :class:`Reach` of the creator class named ``creator_name`` (its short name) whose method ``fn`` is being
    judged (memoised on the index)."""
    memo = index.__dict__.setdefault("_trtlint_model_reach", {})
    key = (creator_name, fn.span.path)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _reach(index, creator_name, fn)
    return got


def _reach(index, creator_name: str, fn) -> Reach:
    infos = [c for c in index.creators if c.cls.name == creator_name]
    if not infos:
        return Reach("its creator class is not known", [])
    own = []
    for r in _requests(index):
        hit = [c for c in route_creators(index, r) if c in infos]
        if not hit:
            continue
        if r.kind in _MODEL_KINDS:
            return Reach(f"{r.what} at {r.span.path}:{r.span.line} resolves to it", [])
        own.append(r)
    why = _program_evidence(index, fn.span.path) or _library(index, fn.span.path)
    return Reach(why, own)


def _requests(index) -> list:
    got = index.__dict__.get("_trtlint_reach_requests")
    if got is None:
        got = index.__dict__["_trtlint_reach_requests"] = list(all_requests(index))
    return got


def _program_evidence(index, path: str) -> Optional[str]:
    """(b) and (c): a file of the program holding ``path`` (or of no program) that names a model parser or loads
    a library at run time."""
    scopes = index.scopes
    mine = scope_of(path, scopes) if scopes else ""
    for p in sorted(index.model_io):
        s = scope_of(p, scopes) if scopes else ""
        if s and mine and not (s == mine or s.startswith(mine + "/") or mine.startswith(s + "/")):
            continue
        for kind, line, text in index.model_io[p]:
            if kind == "profile" or (kind == "loader" and not text.startswith("--")):
                continue
            if kind == "parser":
                return f"its program parses models (`{text}` at {p}:{line})"
            return f"its program loads a library at run time (`{text}` at {p}:{line})"
    return None


def _library(index, path: str) -> Optional[str]:
    """(c): the code is not held by the tree's own executables alone (a header: by the units including it)."""
    units = index.executable_units
    if path in units:
        return None
    includers = [p for p, ff in index.files.items() if path in ff.includes]
    if path in index.files and index.files[path].kind == "header" and includers and all(u in units for u in includers):
        return None
    return (f"{path} is in no executable of the tree, or in a library none of them links: a plugin library others "
            "may load")


def program_entries(index, path: str, kind: str) -> list[tuple[str, int, str]]:
    """``(file, line, text)`` of the ``kind`` evidence (store.scancache.model_io) of the files of the program
    holding ``path`` (and of the files in no program)."""
    scopes = index.scopes
    mine = scope_of(path, scopes) if scopes else ""
    out = []
    for p in sorted(index.model_io):
        s = scope_of(p, scopes) if scopes else ""
        if s and mine and not (s == mine or s.startswith(mine + "/") or mine.startswith(s + "/")):
            continue
        out.extend((p, line, text) for k, line, text in index.model_io[p] if k == kind)
    return out


def builds_only_here(index, plugin: str, path: str) -> Optional[str]:
    """Why every engine holding the plugin class ``plugin`` (its short name; code at ``path``) is built by the code
    of its program, whose optimization profiles are all in sight; None when one may be built elsewhere or with
    shapes set out of sight: a model route of the tree names the plugin (its model may be built by any tool), the
    program loads a library at run time or runs trtexec (shapes from its command line), or no profile is read."""
    infos = [c for c in index.plugins if c.cls.name == plugin]
    names = {n for c in infos for n in (c.names or ((c.plugin_name,) if c.plugin_name else ()))}
    for r in _requests(index):
        if r.kind in _MODEL_KINDS and (not names or r.name in names):
            return None
    if program_entries(index, path, "loader"):
        return None
    if any(text == "trtexec" for _, _, text in program_entries(index, path, "parser")):
        return None
    return fixed_dims(program_entries(index, path, "profile"))


def fixed_dims(entries) -> Optional[str]:
    """Why every dimension but the first is static in every engine a program builds, given the profile entries of
    its files (``(path, line, text)``; ``text`` as store.profilescan writes it: ``input<TAB>selector<TAB>e0<TAB>
    e1...`` or ``input<TAB>?``): each input's kMIN, kOPT and kMAX give the same expression for each dimension but
    the first. None when one may vary, an entry is unknown, or no profile is set."""
    if not entries:
        return None
    seen: dict[tuple[str, str], tuple[str, ...]] = {}
    first = None
    for path, line, body in entries:
        parts = body.split("\t")
        if len(parts) < 3:
            return None
        key = (path, parts[0])
        rest = tuple(parts[3:])
        if seen.setdefault(key, rest) != rest:
            return None
        first = first or (path, line)
    return f"the program's optimization profiles ({first[0]}:{first[1]}) vary only the first dimension of each input"
