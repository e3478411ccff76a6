"""ONNX model nodes as routes for the contract rules (TRT101/TRT102/TRT103): each node the parser hands to the
plugin registry asks for (op_type, plugin_version or "1", plugin_namespace or "") and passes its attributes.
Nodes of standard ONNX ops without a TensorRT importer, and nodes in a non-plugin domain of the profile
(``com.microsoft``, ...), are TRT501's; in the generic profile, nodes of a domain where nothing names a creator
(``ProjectIndex.is_model_plugin_domain``) are not routes; identical nodes of a model are one route."""

from __future__ import annotations

from typing import Iterator

from trtlint.base.facts import AttrFact
from ..onnx._nodes import RESERVED, foreign, group, plugin_nodes, requested, where


def model_requests(index, request_cls) -> Iterator:
    nodes = [(m, n) for m, n in plugin_nodes(index) if not n.standard and not foreign(index, n) and index.is_model_plugin_domain(n.domain)]

    def key(mn):
        m, n = mn
        version, namespace, written = requested(n)
        va = n.attr("plugin_version")
        if va is not None and va.type != "STRING":
            version = None  # a mistyped plugin_version is TRT505's (reserved-attribute-misuse), not a version to judge
        return (m.span.path, n.op_type, n.domain, version, namespace, written, tuple((a.name, a.type) for a in n.attrs))

    for (path, op, _dom, version, namespace, written, _attrs), items in group(nodes, key):
        n0 = items[0][1]
        yield request_cls(
            kind="model",
            name=op,
            version=version,
            namespace=namespace,
            span=n0.span,
            what=where([n for _, n in items]),
            attrs=tuple(
                AttrFact(a.name, n0.span, a.value, a.type) for a in n0.attrs if a.name not in RESERVED and not a.ref_attr_name
            ),
            open_attrs=False,
            version_span=n0.span,
            version_default=not written,
            logical=n0.logical,
        )
