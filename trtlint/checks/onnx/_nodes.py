"""How TensorRT's ONNX parser treats each model node, as data for the ONNX rules (TRT5xx and the contract
rules applied to model nodes).

The parser (onnx-tensorrt) dispatches on the node's op_type only: a built-in importer first (the list is the
rules/ pack ``onnx_importers``), then a model-local function of that name, and only then the plugin registry,
asking for (op_type, ``plugin_version`` or "1", ``plugin_namespace`` or "") and, failing that, with the node's
domain as namespace. The plugin gets only the attributes its creator declares (``getFieldNames``); INT and INTS
values are narrowed to int32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from trtlint.base.facts import OnnxModel, OnnxNode, PluginFieldDecl, Span

RESERVED = ("plugin_version", "plugin_namespace", "tensorrt_plugin_shape_input_indices")
DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass(frozen=True)
class Known:
    """A creator the parser could find: a project creator, a TensorRT OSS plugin spec, TensorRT's own library."""

    name: str
    version: Optional[str]  # None: not known statically (matches any)
    namespace: str
    source: str  # "creator FooCreator", "plugin spec Foo_PluginConfig.yaml", "libnvinfer_plugin (TensorRT)"
    span: Optional[Span] = None
    fields: Optional[tuple[PluginFieldDecl, ...]] = None  # None: fields not known
    required: tuple[str, ...] = ()
    family: str = ""  # creator family ("creator_v2", "creator_v3", "python", "qdp", "spec", "external")
    in_project: bool = True


def known_creators(index) -> dict[str, list[Known]]:
    """Every creator the parser could find, by name (computed once per index)."""
    cache = index.__dict__.get("_onnx_known")
    if cache is not None:
        return cache
    out: dict[str, list[Known]] = {}
    for c in index.creators:
        if not c.plugin_name:
            continue
        for v in _versions(index, c):
            out.setdefault(c.plugin_name, []).append(
                Known(
                    name=c.plugin_name,
                    version=v,
                    namespace=c.plugin_namespace,
                    source=f"creator {c.cls.name}",
                    span=c.name_span,
                    fields=tuple(c.fields) if c.fields else None,
                    family=c.cls.family,
                )
            )
    cpp_names = set(out)
    for s in getattr(index, "plugin_specs", ()):
        lst = out.setdefault(s.name, [])
        if s.name in cpp_names:
            # the C++ creator is the reference: the spec adds what C++ does not say (required attributes, and the
            # fields when the creator's were not found); a spec version no creator registers is a stale spec
            for i, k in enumerate(lst):
                if k.version in (s.version, None):
                    lst[i] = Known(**{**k.__dict__, "required": s.required, "fields": k.fields if k.fields is not None else (s.fields or None)})
            continue
        lst.append(
            Known(
                name=s.name,
                version=s.version,
                namespace="",
                source=f"plugin spec {s.span.path.rsplit('/', 1)[-1]}",
                span=s.version_span or s.span,
                fields=s.fields or None,
                required=s.required,
                family="spec",
            )
        )
    for name, (library, ns, versions) in getattr(index.packs, "externals", {}).items():
        if name in out:
            continue  # the project defines it: judged against its own definition
        out[name] = [Known(name, v, ns, library, family="external", in_project=False) for v in versions]
    index.__dict__["_onnx_known"] = out
    return out


def _versions(index, c) -> list[Optional[str]]:
    """Every version a creator's getPluginVersion() can return (a templated creator may return one per
    instantiation, e.g. TensorRT OSS ReorgPluginCreator<T>: "1" or "2"); [None] when none is known."""
    vals: list[Optional[str]] = []
    for fn in index.find_method(c.qualname, "getPluginVersion"):
        for r in fn.returns:
            if r.value and r.value not in vals:
                vals.append(r.value)
    if c.plugin_version is not None and c.plugin_version not in vals:
        vals.insert(0, c.plugin_version)
    return vals or [c.plugin_version]


def foreign(index, node: OnnxNode) -> bool:
    """A node in a domain the profile counts as built in that is neither ONNX's own nor TensorRT's (``trt``, where
    exporters also put TensorRT plugin nodes): an op of another runtime (``com.microsoft``, ...), not a route to a
    project plugin."""
    return node.domain not in DEFAULT_DOMAINS and node.domain != "trt" and node.domain in set(index.profile.builtin_domains)


def builtin_ops(index) -> set:
    """Every op_type some TensorRT release's ONNX parser imports (:func:`imports` says whether a given one does)."""
    return index.packs.onnx_builtin_ops


def imports(index, op_type: str, path: Optional[str]) -> bool:
    """Whether the ONNX parser of the TensorRT release the code at ``path`` targets imports ``op_type`` itself."""
    return index.packs.onnx_importers.imports(op_type, release_of(index, path))[0]


def release_of(index, path: Optional[str]) -> str:
    """The TensorRT release a model (or emitting file) at ``path`` is judged against (remembered per path)."""
    memo = index.__dict__.setdefault("_onnx_release", {})
    if path not in memo:
        memo[path] = index.tensorrt_version(path)
    return memo[path]


def local_functions(model: OnnxModel) -> set:
    return {name for _dom, name, _imports in model.functions}


def kind_of(index, model: OnnxModel, node: OnnxNode) -> str:
    """'builtin' (a built-in importer of the targeted release takes it), 'function' (a model-local function), or
    'plugin' (:func:`dispatch`'s first steps)."""
    takes = index.packs.onnx_importers.imports(node.op_type, release_of(index, model.span.path))[0]
    return "builtin" if takes else "function" if node.op_type in local_functions(model) else "plugin"


def dispatch_kind(importers, release: Optional[str], op_type: str, functions) -> tuple[str, str]:
    """The parser's first two steps: ('builtin', note) when the release's built-in importer takes ``op_type``,
    ('function', "") for a model-local function of that name, else ('plugin', why no importer took it: "" or the
    release note of an op another release imports)."""
    takes, note = importers.imports(op_type, release)
    if takes:
        return "builtin", note
    if op_type in functions:
        return "function", ""
    return "plugin", note


@dataclass(frozen=True)
class Dispatch:
    """Where TensorRT's ONNX parser sends one node (:func:`dispatch`), for ``check``'s rules and ``coverage`` alike.

    ``kind``: 'builtin', 'function', 'plugin' (a creator answers: ``creator``) or 'unsupported'; ``lookup`` says
    which lookup failed for 'unsupported': 'standard' (an ONNX operator without an importer in this release),
    'foreign' (another runtime's domain), 'name' (no creator of that name), 'version', 'namespace';
    ``note``: the release note of the importer list ("" when plain); ``candidates``: the creators of that name."""

    kind: str
    creator: Optional[Known] = None
    lookup: str = ""
    note: str = ""
    candidates: tuple = ()


def dispatch(op_type: str, domain: str, *, version: Optional[str], namespace: str, importers, release: Optional[str],
             functions, known: list, standard: bool, foreign: bool) -> Dispatch:
    """The parser's dispatch of one node: the release's built-in importer, a model-local function, then the plugin
    registry by (op_type, version, namespace, then the domain as namespace); the project's creator answers before
    TensorRT's library's, a known version before an unknown one."""
    kind, note = dispatch_kind(importers, release, op_type, functions)
    if kind != "plugin":
        return Dispatch(kind, note=note)
    ks = tuple(known)
    if not ks:
        lookup = "standard" if standard else "foreign" if foreign else "name"
        return Dispatch("unsupported", lookup=lookup, note=note)
    found = [k for k in ks if (k.version is None or version is None or k.version == version) and k.namespace in (namespace, domain)]
    if found:
        return Dispatch("plugin", min(found, key=lambda k: (not k.in_project, k.version is None)), note=note, candidates=ks)
    same = [k for k in ks if k.version in (version, None)]
    return Dispatch("unsupported", lookup="namespace" if same else "version", note=note, candidates=tuple(same) or ks)


def node_dispatch(index, model: OnnxModel, node: OnnxNode) -> Dispatch:
    """:func:`dispatch` of a model node of the index, against the release its model targets."""
    version, namespace, _ = requested(node)
    return dispatch(node.op_type, node.domain, version=version, namespace=namespace,
                    importers=index.packs.onnx_importers, release=release_of(index, model.span.path),
                    functions=local_functions(model), known=known_creators(index).get(node.op_type, []),
                    standard=node.standard, foreign=foreign(index, node))


def plugin_nodes(index) -> Iterator[tuple[OnnxModel, OnnxNode]]:
    """Every model node the parser hands to the plugin registry (computed once per index: a dozen rules ask)."""
    memo = index.__dict__.get("_onnx_plugin_nodes")
    if memo is None or memo[0] != len(index.models):
        memo = index.__dict__["_onnx_plugin_nodes"] = (
            len(index.models), [(m, n) for m in index.models for n in m.nodes if kind_of(index, m, n) == "plugin"])
    yield from memo[1]


def requested(node: OnnxNode) -> tuple[Optional[str], str, bool]:
    """(version, namespace, version written) the parser asks for (:func:`requested_from`)."""
    def typed(name):
        a = node.attr(name)
        return None if a is None else (a.type, None if a.ref_attr_name else a.value)

    return requested_from(typed)


def requested_from(typed) -> tuple[Optional[str], str, bool]:
    """(version, namespace, version written) the parser asks for, ``typed(name)`` giving an attribute's (type,
    value) or None. A ``plugin_version`` that is not a STRING attribute is read as "" (``AttributeProto.s``); the
    version is None when its value is not known."""
    va = typed("plugin_version")
    if va is None:
        version: Optional[str] = "1"
    elif va[0] == "STRING":
        version = va[1]
    else:
        version = ""
    na = typed("plugin_namespace")
    namespace = (na[1] or "") if na is not None and na[0] == "STRING" else ""
    return version, namespace, va is not None


def matches(node: OnnxNode, known: list[Known]) -> list[Known]:
    """The creators the parser would find for ``node``: name, version, then namespace or the node's domain."""
    version, namespace, _ = requested(node)
    return [k for k in known if (k.version is None or version is None or k.version == version) and k.namespace in (namespace, node.domain)]


def version_key(v: Optional[str]) -> tuple:
    try:
        return (0, int(v or ""), "")
    except ValueError:
        return (1, 0, v or "")


def group(items, key) -> list[tuple[object, list]]:
    """Items grouped by ``key`` in first-seen order (one finding per model and kind of problem, not per node)."""
    out: dict = {}
    for it in items:
        out.setdefault(key(it), []).append(it)
    return list(out.items())


def where(nodes: list[OnnxNode]) -> str:
    n = nodes[0]
    more = f" (and {len(nodes) - 1} more node{'s' if len(nodes) > 2 else ''} like it)" if len(nodes) > 1 else ""
    op = f"{n.domain}::{n.op_type}" if n.domain else n.op_type
    return f"ONNX node '{n.logical}' ({op}){more}"
