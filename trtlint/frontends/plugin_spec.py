"""The plugin-spec frontend: TensorRT OSS ``*_PluginConfig.yaml`` files -> :class:`~trtlint.base.facts.PluginSpec`.

TensorRT OSS describes many of its plugins in a YAML spec next to the code (``plugin/<dir>/<Name>_PluginConfig.yaml``):
the plugin name, and per version the attributes the creator takes, their types (``float32``, ``int32``,
``char``, ...), lengths and which are required. This frontend reads those specs with pyyaml (composed nodes, so
each fact carries its line) into creator-like facts the index can use next to the C++ creators. Other YAML files
are not read (their kind is ``yaml`` too).
"""

from __future__ import annotations

from typing import Optional

from trtlint.base.facts import FileFacts, ParseProblem, PluginFieldDecl, PluginSpec, Span
from . import ExtractContext, SourceFile, read_text

KIND_NAMES = ("yaml",)
VERSION = "1"
SUFFIX = "_PluginConfig.yaml"

# spec attribute types -> PluginFieldType enumerators
_TYPES = {
    "float16": "kFLOAT16",
    "float32": "kFLOAT32",
    "float64": "kFLOAT64",
    "int8": "kINT8",
    "int16": "kINT16",
    "int32": "kINT32",
    "int64": "kINT64",
    "char": "kCHAR",
    "dims": "kDIMS",
    "bf16": "kBF16",
    "bfloat16": "kBF16",
    "fp8": "kFP8",
    "int4": "kINT4",
    "fp4": "kFP4",
}


def is_plugin_spec(rel: str) -> bool:
    return rel.endswith(SUFFIX)


def extract(src: SourceFile, ctx: ExtractContext) -> FileFacts:
    empty = FileFacts(path=src.rel, kind=src.kind, digest=src.digest)
    if not is_plugin_spec(src.rel):
        return empty
    text, why = read_text(src)
    if text is None:
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(why or "cannot read", Span(src.rel, 1)),))
    import yaml

    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        msg = f"invalid YAML: {getattr(e, 'problem', None) or e}"
        return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=(ParseProblem(msg, Span(src.rel, line)),))
    specs: list[PluginSpec] = []
    problems: list[ParseProblem] = []
    for doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, yaml.MappingNode):
            problems.append(ParseProblem("a plugin spec must be a mapping with 'name' and 'versions'", _span(src.rel, doc)))
            continue
        top = _mapping(doc)
        name_node = top.get("name")
        versions = top.get("versions")
        if not isinstance(name_node, yaml.ScalarNode) or not isinstance(versions, yaml.MappingNode):
            problems.append(ParseProblem("a plugin spec needs 'name' and a 'versions' mapping", _span(src.rel, doc)))
            continue
        interface = top.get("interface")
        iface = interface.value if isinstance(interface, yaml.ScalarNode) else None
        for vkey, vnode in versions.value:
            if not isinstance(vnode, yaml.MappingNode):
                continue
            v = _mapping(vnode)
            attrs = v.get("attributes")
            types = _scalars(v.get("attribute_types"))
            lengths = _scalars(v.get("attribute_length"))
            fields = []
            if isinstance(attrs, yaml.SequenceNode):
                for item in attrs.value:
                    if not isinstance(item, yaml.ScalarNode):
                        continue
                    t = types.get(item.value)
                    fields.append(
                        PluginFieldDecl(
                            name=item.value,
                            type=_TYPES.get(t.lower()) if t else None,
                            length=lengths.get(item.value),
                            span=_span(src.rel, item),
                        )
                    )
            req = v.get("attributes_required")
            required = tuple(i.value for i in req.value if isinstance(i, yaml.ScalarNode)) if isinstance(req, yaml.SequenceNode) else ()
            specs.append(
                PluginSpec(
                    name=name_node.value,
                    version=str(vkey.value),
                    span=_span(src.rel, name_node),
                    fields=tuple(fields),
                    required=required,
                    interface=iface,
                    version_span=_span(src.rel, vkey),
                )
            )
    return FileFacts(path=src.rel, kind=src.kind, digest=src.digest, problems=tuple(problems), plugin_specs=tuple(specs))


def _mapping(node) -> dict:
    import yaml

    return {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}


def _scalars(node) -> dict[str, str]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: str(v.value) for k, v in node.value if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)}


def _span(rel: str, node) -> Span:
    m: Optional[object] = getattr(node, "start_mark", None)
    if m is None:
        return Span(rel, 1)
    end = getattr(node, "end_mark", None)
    line, col = m.line + 1, m.column + 1
    if end is not None and end.line == m.line:
        return Span(rel, line, col, line, end.column + 1)
    return Span(rel, line, col)
