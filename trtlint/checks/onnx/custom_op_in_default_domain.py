from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import DEFAULT_DOMAINS, group, known_creators, plugin_nodes, where


def _named_op(index):
    """Whether a default-domain op type is known to be a plugin op. When the project defines creators (or plugin
    specs): an op a creator of the project or of TensorRT's plugin library registers, a near miss of one, or an
    op the project's own code emits; a made-up op nothing in the tree knows (a tool's demo model of fake ops) is
    not known to be one, as TRT501 and TRT101 do not judge it either. With no creator in the tree, every op is."""
    if not index.creators and not getattr(index, "plugin_specs", ()):
        return lambda op: True
    known = known_creators(index)
    emitted = {e.op_type for e in index.emissions}
    return lambda op: (op in known or op in emitted or index.packs.external_creator(op) is not None
                       or index.near_miss(op))


class CustomOpInDefaultDomain(Rule):
    """A plugin node in the default ONNX domain, or a node whose domain the model does not import.

    ## What it does
    Reports ONNX model nodes that TensorRT would look up as plugins but that sit in the default ONNX domain
    (`""` / `ai.onnx`) under an op_type the ONNX standard does not define, and nodes whose domain has no
    entry in the model's opset imports (the function's, for a node in a model-local function).

    ## Why it matters
    The model is not valid ONNX: `onnx.checker` rejects it ("No Op registered for FooPlugin with domain_version
    of 17", "domain not imported"), shape inference, ONNX Runtime and graph tools (onnxsim, Polygraphy
    surgeon) fail or drop the node before TensorRT ever sees it.

    Which default-domain ops are plugin ops: when the project defines creators, an op type a creator of the
    project or of TensorRT's plugin library registers, a near miss of one, or one the project's code emits; an op
    type nothing in the tree knows (a tool's demo model built of made-up ops, `Fake`, `A`) is not judged, as
    TRT501 and TRT101 do not judge it either. With no creator in the tree, every non-standard op is. Test files
    are not judged.

    ## Example
    `helper.make_node("FooPlugin", ["x"], ["y"])` (no domain), or a node in domain `trt_plugins` in a model
    whose `opset_import` lists only `""`.

    ## Fix
    Put plugin nodes in a custom domain (`domain="trt_plugins"`) and add an opset import for every domain the
    model uses (`helper.make_opsetid("trt_plugins", 1)`).
    """

    code = "TRT506"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "custom-op-in-default-domain"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Relu"), onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17), ("trt_plugins", 1))
                ),
            }
        },
        {
            # a plugin node inside a model-local function: the function's own opset_import lists its domain
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Block", "local"),
                    opsets=(("", 17), ("local", 1)),
                    functions=(("local", "Block", onnx_node("FooPlugin", "trt_plugins", alpha=1.0), (("", 17), ("trt_plugins", 1))),),
                ),
            }
        },
        {
            # a test's model of fake ops (ONNX GraphSurgeon's and Polygraphy's test models are such): TRT506 does not
            # judge test files
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "tools/graphtool/tests/models/toy.onnx": onnx_model(onnx_node("A"), onnx_node("B")),
            }
        },
        {
            # a demo model of made-up ops (Polygraphy's examples show its unsupported-op report with a 'Fake' op):
            # no creator of the project or of TensorRT's library has these names, and nothing emits them
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "tools/graphtool/examples/inspect/model.onnx": onnx_model(onnx_node("Fake"), onnx_node("O")),
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", alpha=1.0), onnx_node("FooPlugin", name="second", alpha=2.0)),
            },
            "expect": [("models/foo.onnx", 1, "ONNX node 'main_graph/FooPlugin_0' (FooPlugin) (and 1 more node like it) is a plugin op in the default ONNX domain")],
        },
        {
            # a near miss of a creator's name, and an op of TensorRT's own plugin library, are plugin ops too
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugn"), onnx_node("EfficientNMS_TRT")),
            },
            "expect": [
                ("models/foo.onnx", 1, "(FooPlugn) is a plugin op in the default ONNX domain"),
                ("models/foo.onnx", 1, "(EfficientNMS_TRT) is a plugin op in the default ONNX domain"),
            ],
        },
        {
            # with no creator in the tree (the plugins come from another library) every non-standard op counts
            "files": {"models/foo.onnx": onnx_model(onnx_node("MyPlugin"))},
            "expect": [("models/foo.onnx", 1, "(MyPlugin) is a plugin op in the default ONNX domain")],
        },
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(onnx_node("FooPlugin", "trt_plugins", alpha=1.0), opsets=(("", 17),)),
            },
            "expect": [("models/foo.onnx", 1, "uses domain 'trt_plugins', which the model's opset_import does not list")],
        },
        {
            # a function's opset imports count for its own nodes only: the main graph's node is reported
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Block", "local"),
                    onnx_node("FooPlugin", "trt_plugins", inputs=("Block_0_out",), alpha=1.0),
                    opsets=(("", 17), ("local", 1)),
                    functions=(("local", "Block", onnx_node("FooPlugin", "trt_plugins", alpha=1.0), (("", 17), ("trt_plugins", 1))),),
                ),
            },
            "expect": [("models/foo.onnx", 1, "ONNX node 'main_graph/FooPlugin_0' (trt_plugins::FooPlugin) uses domain 'trt_plugins', which the model's opset_import does not list")],
        },
        {
            # neither the function nor the model imports the domain of the function's node
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("Block", "local"),
                    opsets=(("", 17), ("local", 1)),
                    functions=(("local", "Block", onnx_node("FooPlugin", "trt_plugins", alpha=1.0), (("", 17),)),),
                ),
            },
            "expect": [("models/foo.onnx", 1, "ONNX node 'function:local::Block/FooPlugin_0' (trt_plugins::FooPlugin) uses domain 'trt_plugins', which the model's opset_import does not list")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        named = _named_op(index)
        default = [(m, n) for m, n in plugin_nodes(index) if n.domain in DEFAULT_DOMAINS and not n.standard and named(n.op_type)]
        for _key, items in group(default, key=lambda it: (it[0].span.path, it[1].op_type)):
            n = items[0][1]
            yield self.diag(
                n.span,
                f"{where([it[1] for it in items])} is a plugin op in the default ONNX domain, where the ONNX standard "
                f"defines no '{n.op_type}': onnx.checker, shape inference and ONNX Runtime reject the model; put it in "
                "a custom domain (with an opset import)",
                symbol=n.op_type,
                logical=n.logical,
            )
        for m in index.models:
            model_domains = {d for d, _ in m.opset_imports}
            fn_domains = {f"function:{dom}::{name}" if dom else f"function:{name}": set(imports) for dom, name, imports in m.functions}
            missing = []
            for n in m.nodes:
                if n.domain in DEFAULT_DOMAINS:
                    continue
                top = n.graph.split("/", 1)[0]
                imported = fn_domains.get(top, set()) | model_domains if top.startswith("function:") else model_domains
                if n.domain not in imported:
                    missing.append(n)
            for dom, nodes in group(missing, key=lambda n: n.domain):
                n = nodes[0]
                yield self.diag(
                    n.span,
                    f"{where(nodes)} uses domain '{dom}', which the model's opset_import does not list: onnx.checker "
                    f"rejects the model; add helper.make_opsetid(\"{dom}\", 1)",
                    symbol=f"domain:{dom}",
                    logical=n.logical,
                )
