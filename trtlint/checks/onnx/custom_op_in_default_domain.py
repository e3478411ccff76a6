from __future__ import annotations

from typing import Iterable

from ...diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.contract import creator_cpp
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import DEFAULT_DOMAINS, group, plugin_nodes, where


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

    ## Example
    `helper.make_node("FooPlugin", ["x"], ["y"])` (no domain), or a node in domain `trt_plugins` in a model
    whose `opset_import` lists only `""`.

    ## Fix
    Put plugin nodes in a custom domain (`domain="trt_plugins"`) and add an opset import for every domain the
    model uses (`helper.make_opsetid("trt_plugins", 1)`).
    """

    code = "TRT506"
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
        default = [(m, n) for m, n in plugin_nodes(index) if n.domain in DEFAULT_DOMAINS and not n.standard]
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
