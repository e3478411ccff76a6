from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import foreign, group, known_creators, matches, plugin_nodes, requested, where


class UnresolvedPluginNode(Rule):
    """An ONNX model node that is neither a built-in TensorRT op nor a creator the parser can find.

    ## What it does
    Reads every node of every `.onnx` model (main graph, control-flow subgraphs, model-local functions) and
    follows TensorRT's ONNX parser: an op_type with a built-in importer is imported as that op (the list is
    the `onnx_importers` rules/ pack), a model-local function of that name comes next, and any other node is
    looked up as a plugin creator by (op_type, `plugin_version` or "1", `plugin_namespace` or ""), then with
    the node's domain as namespace. Reports the nodes that no creator answers: a standard ONNX operator
    TensorRT has no importer for (`Unique`, `ai.onnx.ml` ops), a creator registered under another namespace,
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
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        known = known_creators(index)
        found = []
        for m, n in plugin_nodes(index):
            ks = known.get(n.op_type, [])
            version, namespace, _ = requested(n)
            if not ks:
                if n.standard:
                    dom = n.domain or "ai.onnx"
                    found.append((m, n, "standard", (
                        f"TensorRT's ONNX parser has no importer for the ONNX operator '{n.op_type}' ({dom}), so it "
                        f"looks '{n.op_type}' up as a plugin creator, and no creator registers it: the parser fails here"
                    ), []))
                elif foreign(index, n):
                    found.append((m, n, "foreign", (
                        f"TensorRT's ONNX parser has no importer for '{n.op_type}' of domain '{n.domain}' (a domain the "
                        f"profile counts as another runtime's, not a plugin domain), so it looks '{n.op_type}' up as a "
                        "plugin creator, and no creator registers it: the parser fails here"
                    ), []))
                    continue
                # any other name: TRT101's when the project defines creators; when it defines none, the plugin
                # library the model is meant for is not in the tree and its names cannot be judged
                continue
            if version is None or matches(n, ks):
                continue
            same_version = [k for k in ks if k.version in (version, None)]
            if not same_version:
                if any(k.in_project for k in ks) or not requested(n)[2]:
                    continue  # TRT102 (plugin_version written) or TRT502 (implicit version) reports it
                regs = ", ".join(sorted({f"'{k.version}'" for k in ks}))
                found.append((m, n, f"version:{version}", (
                    f"asks for '{n.op_type}' version '{version}', but {ks[0].source} registers only version {regs}"
                ), []))
                continue
            k = same_version[0]
            found.append((m, n, f"ns:{namespace}", (
                f"asks for '{n.op_type}' version '{version}' in namespace '{namespace}' (then in its domain "
                f"'{n.domain}'), but {k.source} registers it in namespace '{k.namespace}': the parser does not find it"
            ), [Related(k.span, f"{k.source} registers '{k.name}' here")] if k.span else []))
        for (_path, _op, _dom, _why), items in group(found, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain, it[2])):
            m, n, _, msg, related = items[0]
            text = f"{where([it[1] for it in items])}: {msg}" if not msg.startswith(("is ", "asks ")) else f"{where([it[1] for it in items])} {msg}"
            yield self.diag(n.span, text, related=related, symbol=n.op_type, logical=n.logical)
