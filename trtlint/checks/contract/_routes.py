"""Shared view of every place that asks for a plugin by name: the routes the contract rules judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from trtlint.base.facts import AttrFact, Span


@dataclass(frozen=True)
class Request:
    kind: str  # "onnx" | "route-table" | "route-call" | "lookup"
    name: str  # the creator name asked for
    version: Optional[str]  # None: not known statically
    namespace: Optional[str]
    span: Span  # where a person changes it
    what: str  # a noun phrase naming it in a message
    via_table: bool = False  # a route call whose creator comes from a table entry (judged at the entry)
    attrs: tuple[AttrFact, ...] = ()
    open_attrs: bool = True
    version_span: Optional[Span] = None
    version_default: bool = False  # the version is the route's default, not written
    logical: Optional[str] = None  # a logical location (an ONNX model node: "graph/node")
    name_span: Optional[Span] = None  # where the name is written: an identifier or a string literal ending in it
    form: Optional[str] = None  # an ONNX emission's form ("g.op", "gs.Node", ...); a lookup's (CreatorLookup.form)
    domain: Optional[str] = None  # an emitted ONNX node's domain ("": ONNX's own)


def external(index, r: "Request") -> bool:
    """A request the project cannot judge: it names a creator from another library. That is a namespace no
    creator of the project registers under (e.g. TensorRT-LLM's "tensorrt_llm"), or a creator the rules/
    packs list as shipped by a library (TensorRT's own libnvinfer_plugin) that the project does not define."""
    if index.creators_named(r.name):
        return False  # the project defines it: judge it
    if r.namespace not in (None, "") and not any(c.plugin_namespace == r.namespace for c in index.creators):
        return True
    return index.packs.external_creator(r.name) is not None


def requests(index, judged_once: bool = False) -> Iterator[Request]:
    """Every route that names a creator the project defines or could define (other libraries' creators
    left out). ``judged_once``: leave out route calls whose creator comes from a table entry, for rules that
    judge the name and version at the entry itself (one mismatch, one finding)."""
    for r in all_requests(index):
        if external(index, r) or (judged_once and r.via_table):
            continue
        yield r


def nearest(creators: list, path: str) -> list:
    """Of several creators of one name, those whose class is declared nearest ``path`` (a route's file): the
    longest directory path shared with it. Independent samples of one tree, each with its own creator of the same
    name, in a tree whose build descriptions do not split them into programs (each program is checked over its own
    index already): a route is judged against its own sample's creator, so a field renamed, or a version changed,
    in one of them is not masked by the others. A creator declared in the route's own file is nearer still (one
    directory holding several self-contained scripts, each defining its creator and the route to it). Creators
    equally near (a plugin's versions side by side, a route far from all of them) are all kept."""
    if len(creators) < 2:
        return creators
    here = path.split("/")[:-1]

    def shared(c) -> int:
        n = 0
        for a, b in zip(c.cls.span.path.split("/")[:-1], here):
            if a != b:
                break
            n += 1
        return n + (c.cls.span.path == path)

    depth = {id(c): shared(c) for c in creators}
    best = max(depth.values())
    return [c for c in creators if depth[id(c)] == best]


def route_creators(index, r: "Request") -> list:
    """The project creators a route resolves to: of its name and, when the route states one, its version (a creator
    whose version is not known kept), the :func:`nearest` ones."""
    return nearest([c for c in index.creators_named(r.name) if r.version is None or c.plugin_version in (r.version, None)],
                   r.span.path)


def all_requests(index) -> Iterator[Request]:
    """Every route in the project, other libraries' creators included (:func:`requests` leaves those out)."""
    for e in index.onnx_routes():
        vspan = next((a.span for a in e.attrs if a.name == "plugin_version"), None)
        yield Request(
            kind="onnx",
            name=e.op_type,
            version=e.plugin_version if e.plugin_version is not None else ("1" if vspan is None else None),
            namespace=e.plugin_namespace if e.plugin_namespace is not None else ("" if not any(a.name == "plugin_namespace" for a in e.attrs) else None),
            span=e.span,
            what=f"ONNX node '{e.domain}::{e.op_type}'" if e.domain else f"ONNX node '{e.op_type}'",
            attrs=tuple(a for a in e.attrs if a.name not in ("plugin_version", "plugin_namespace")),
            open_attrs=e.open_attrs,
            version_span=vspan,
            version_default=vspan is None,
            name_span=getattr(e, "op_span", None),
            form=e.form,
            domain=e.domain,
        )
    tables = index.route_tables
    for t in tables:
        for op, creator, span in t.entries:
            yield Request(
                kind="route-table",
                name=creator,
                version=t.version,
                namespace=t.namespace,
                span=span,
                what=f"direct-route entry '{op}': '{creator}' in {t.name}",
                version_default=True,
                name_span=span,
            )
    # each table's first creator per operation, looked up per call (a scan of every entry per call was
    # quadratic in the number of operations)
    firsts = [(t, {op: cr for op, cr, _ in reversed(t.entries)}) for t in tables] if index.route_calls else []
    for c in index.route_calls:
        creator = None
        via = None
        for t, first in firsts:
            hit = first.get(c.operation)
            if hit is not None:
                creator, via = hit, t
                break
        if creator is None:
            fb = next((t for t in tables if t.fallback_identity), None)
            if fb is None:
                continue  # no table understood: nothing to judge against
            creator, via = c.operation, fb
        yield Request(
            kind="route-call",
            name=creator,
            version=via.version,
            namespace=via.namespace,
            span=c.span,
            what=(
                f"direct-route operation '{c.operation}' (creator '{creator}' via {via.name})"
                if creator != c.operation
                else f"direct-route operation '{c.operation}' (not in {via.name}: looked up as a creator name)"
            ),
            attrs=c.attrs,
            open_attrs=c.open_attrs,
            version_default=True,
            via_table=creator != c.operation,
        )
    from ._model_routes import model_requests

    yield from model_requests(index, Request)
    for lk in index.lookups:
        if lk.name is None:
            continue
        yield Request(
            kind="lookup",
            name=lk.name,
            version=lk.version,
            namespace=lk.namespace,
            span=lk.name_span or lk.span,
            what=lookup_what(lk),
            name_span=lk.name_span,
            attrs=getattr(lk, "attrs", ()),
            form=getattr(lk, "form", None),
        )


def lookup_what(lk) -> str:
    form = getattr(lk, "form", "get_creator")
    arg = getattr(lk, "dict_arg", None)
    if arg is not None:  # a helper of another module completed from the dict this call hands it
        return f"get_creator({lk.name!r}, {lk.version!r}, {lk.namespace!r}) through {arg.target.rpartition('.')[2]}(...)"
    call = getattr(lk, "helper_call", None)
    if call is not None:  # a helper completed from the name and fields this call hands it
        return f"get_creator({lk.name!r}, {lk.version!r}, {lk.namespace!r}) through {call.function}(...)"
    if form == "get_creator":  # a name not known statically (a helper's parameter) shows as ?
        return f"get_creator({'?' if lk.name is None else repr(lk.name)}, {lk.version!r}, {lk.namespace!r})"
    if form == "plugin_creator_list":  # Python: a scan of the registry's creators for one name
        return f"plugin_creator_list scan for '{lk.name}'"
    # C++ model code: written as C++ (a version or namespace not known statically shows as ?)
    q = [f'"{v}"' if v is not None else "?" for v in (lk.name, lk.version, lk.namespace)]
    return f"{form}({', '.join(q)})"


def library_routes(index) -> Iterator[tuple["Request", str, tuple, str]]:
    """Routes with attributes to TensorRT's own plugins (a name the rules/ packs list, no project creator of it),
    each with the fields libnvinfer_plugin's creator declares in the release the code targets
    (rules/tensorrt_plugin_fields.yaml; the newest release there when no version is known): (request, release,
    fields, a note to add to a message when no version is known)."""
    packs = index.packs
    for r in all_requests(index):
        if not r.attrs or packs.external_creator(r.name) is None or index.creators_named(r.name):
            continue
        target = index.tensorrt_target(r.span.path).version
        got = packs.external_fields(r.name, r.version, target)
        if got is None:
            continue
        note = "" if target else "; no TensorRT version is known, so judged against the newest release here"
        yield r, got[0], got[1], note
