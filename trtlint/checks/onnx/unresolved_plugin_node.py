from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import group, node_dispatch, plugin_nodes, requested, where


class UnresolvedPluginNode(Rule):
    """An ONNX model node that is neither a built-in TensorRT op nor a creator the parser can find.

    ## What it does
    Reads every node of every `.onnx` model (main graph, control-flow subgraphs, model-local functions) and
    follows TensorRT's ONNX parser: an op_type with a built-in importer is imported as that op (the list is
    the `onnx_importers` rules/ pack), a model-local function of that name comes next, and any other node is
    looked up as a plugin creator by (op_type, `plugin_version` or "1", `plugin_namespace` or ""), then with
    the node's domain as namespace. Reports the nodes that no creator answers: a standard ONNX operator
    TensorRT has no importer for (`Unique`, `ai.onnx.ml` ops; `Attention` before TensorRT 10.14: the importer
    list is per release, judged against the release the project targets), a creator registered under another namespace,
    a version TensorRT's own plugin library does not ship. A name the project's creators do not register is
    TRT101's finding, a version they do not register TRT102's/TRT502's; in a project that defines no creators
    at all, other names are not judged (the plugin library the model is meant for is not in the tree).

    ## Why it matters
    The parser fails on the node ("Plugin not found, are the plugin name, version, and namespace
    correct?") at engine build, on a GPU machine, long after the model was exported.

    ## Example
    A model with a `ai.onnx.ml::ZipMap` node, or a node `FooPlugin` whose creator registers itself under the
    namespace `foo` while the node sets no `plugin_namespace`.

    ## Fix
    Export the op in a form TensorRT imports, register the creator it names, or set `plugin_namespace`
    (or the node's domain) to the namespace the creator registers.
    """

    code = "TRT501"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "unresolved-plugin-node"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            # TensorRT 10.14 imports Attention itself (the release a project targets decides, as in coverage)
            "config": {"tensorrt-version": "10.14"},
            "files": {"models/attn.onnx": onnx_model(onnx_node("Attention"), opsets=(("", 23),))},
        },
        {
            # a project without creators: the plugin library the model is meant for is elsewhere (TensorRT
            # Polygraphy's test models with fake ops are such models); its names cannot be judged
            "files": {
                "models/custom.onnx": onnx_model(onnx_node("BarPlugin", "acme", beta=2), opsets=(("", 17), ("acme", 1))),
            }
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Relu"), onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))
                ),
            }
        },
        {
            # TensorRT's own plugin library ships EfficientNMS_TRT; a model-local function is not a plugin
            "files": {
                "models/nms.onnx": onnx_model(
                    onnx_node("EfficientNMS_TRT", "trt", score_threshold=0.5),
                    onnx_node("MyBlock", "local"),
                    opsets=(("", 17), ("trt", 1), ("local", 1)),
                    functions=(("local", "MyBlock"),),
                ),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "models/ml.onnx": onnx_model(onnx_node("ZipMap", "ai.onnx.ml", classlabels_int64s=[1, 2]), opsets=(("", 17), ("ai.onnx.ml", 3))),
            },
            "expect": [("models/ml.onnx", 1, "TensorRT's ONNX parser has no importer for the ONNX operator 'ZipMap' (ai.onnx.ml)")],
        },
        {
            # an ONNX Runtime contrib op: not a route to a project plugin (no TRT101), but TensorRT cannot parse it
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/ort.onnx": onnx_model(onnx_node("FusedMatMul", "com.microsoft", alpha=1.0), opsets=(("", 17), ("com.microsoft", 1))),
            },
            "expect": [("models/ort.onnx", 1, "has no importer for 'FusedMatMul' of domain 'com.microsoft'")],
        },
        {
            # TensorRT's own plugin library registers EfficientNMS_TRT version "1" only
            "files": {
                "models/nms.onnx": onnx_model(
                    onnx_node("EfficientNMS_TRT", "trt", score_threshold=0.5, plugin_version="3"), opsets=(("", 17), ("trt", 1))
                ),
            },
            "expect": [("models/nms.onnx", 1, "asks for 'EfficientNMS_TRT' version '3', but libnvinfer_plugin (TensorRT) registers only version '1'")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin").replace(
                    'getPluginNamespace() const noexcept override { return ""; }',
                    'getPluginNamespace() const noexcept override { return "foo"; }',
                ),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))),
            },
            "expect": [("models/foo.onnx", 1, "creator FooPluginCreator registers it in namespace 'foo'")],
        },
        {
            # the project targets TensorRT 10.1: its parser has no Attention importer yet (10.14 added it)
            "config": {"tensorrt-version": "10.1"},
            "files": {
                "models/attn.onnx": onnx_model(onnx_node("Attention"), opsets=(("", 23),)),
            },
            "expect": [("models/attn.onnx", 1, "the parser fails here (TensorRT's ONNX parser imports Attention since TensorRT 10.14, not in 10.1)")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        found = []
        for m, n in plugin_nodes(index):
            d = node_dispatch(index, m, n)  # the parser's dispatch, as `trtlint coverage` classifies the node
            if d.kind != "unsupported":
                continue
            version, namespace, written = requested(n)
            if d.lookup == "standard":
                dom = n.domain or "ai.onnx"
                later = f" ({d.note})" if d.note else ""
                found.append((m, n, "standard", (
                    f"TensorRT's ONNX parser has no importer for the ONNX operator '{n.op_type}' ({dom}), so it "
                    f"looks '{n.op_type}' up as a plugin creator, and no creator registers it: the parser fails here{later}"
                ), []))
            elif d.lookup == "foreign":
                found.append((m, n, "foreign", (
                    f"TensorRT's ONNX parser has no importer for '{n.op_type}' of domain '{n.domain}' (a domain the "
                    f"profile counts as another runtime's, not a plugin domain), so it looks '{n.op_type}' up as a "
                    "plugin creator, and no creator registers it: the parser fails here"
                ), []))
            elif d.lookup == "version":
                # a name the project's creators do not register is TRT101's (and in a project without creators,
                # not judged); a version they do not register TRT102's (written) or TRT502's (implicit)
                if any(k.in_project for k in d.candidates) or not written:
                    continue
                regs = ", ".join(sorted({f"'{k.version}'" for k in d.candidates}))
                found.append((m, n, f"version:{version}", (
                    f"asks for '{n.op_type}' version '{version}', but {d.candidates[0].source} registers only version {regs}"
                ), []))
            elif d.lookup == "namespace":
                k = d.candidates[0]
                found.append((m, n, f"ns:{namespace}", (
                    f"asks for '{n.op_type}' version '{version}' in namespace '{namespace}' (then in its domain "
                    f"'{n.domain}'), but {k.source} registers it in namespace '{k.namespace}': the parser does not find it"
                ), [Related(k.span, f"{k.source} registers '{k.name}' here")] if k.span else []))
        for (_path, _op, _dom, _why), items in group(found, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain, it[2])):
            m, n, _, msg, related = items[0]
            text = f"{where([it[1] for it in items])}: {msg}" if not msg.startswith(("is ", "asks ")) else f"{where([it[1] for it in items])} {msg}"
            yield self.diag(n.span, text, related=related, symbol=n.op_type, logical=n.logical)
