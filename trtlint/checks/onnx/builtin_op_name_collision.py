from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.contract import creator_cpp, multi_backend_py, onnxscript_py
from ..examples.onnx import onnx_model, onnx_node
from ._nodes import DEFAULT_DOMAINS, builtin_ops, group, imports, known_creators, where


class BuiltinOpNameCollision(Rule):
    """A plugin node whose op_type a built-in TensorRT importer takes first.

    ## What it does
    TensorRT's ONNX parser picks an importer by op_type alone; the domain is not looked at. Reports ONNX
    model nodes in a custom domain, and Python code emitting nodes in a plugin domain (onnxscript opset calls,
    `g.op`, `make_node`), whose op_type is one the parser of the TensorRT release the code targets imports itself
    (`Attention` since 10.14, `RotaryEmbedding` since 10.15, `GroupNormalization` since 8.6, ... the
    `onnx_importers` rules/ pack, per release). Names a creator of that name as related.

    ## Why it matters
    The node never reaches the plugin: the parser imports it as the built-in op, with the built-in op's
    semantics and attribute names, and the plugin's creator is never asked. The engine builds, and computes
    something else than the plugin would.

    ## Example
    ```python
    _plugins = onnxscript.values.Opset("trt_edgellm", 1)
    _plugins.RotaryEmbedding(x, cos, sin)   # TensorRT's built-in RotaryEmbedding importer takes it
    ```

    ## Fix
    Give the plugin a name no built-in importer uses (e.g. `MyRotaryEmbeddingPlugin`) in the creator and in
    every route that emits it.
    """

    code = "TRT503"
    reads = frozenset({"classes", "emissions", "files", "functions", "models", "plugin_specs", "py_creators",
                        "registrations"})
    name = "builtin-op-name-collision"
    family = "onnx"
    applies_to_tests = False  # a test's stub or fake-op model is not a route (docs/configuration.md)

    VALID = [
        {
            "files": {
                "cpp/plugins/foo/fooPlugin.cpp": creator_cpp("FooRotaryPlugin"),
                "py/translate.py": onnxscript_py("FooRotaryPlugin"),
                "models/foo.onnx": onnx_model(
                    onnx_node("RotaryEmbedding"), onnx_node("FooRotaryPlugin", "trt_edgellm", alpha=1.0), opsets=(("", 23), ("trt_edgellm", 1))
                ),
            }
        },
        {
            # the project targets TensorRT 10.1, whose parser has no RotaryEmbedding importer (added in 10.15): the
            # node reaches the plugin's creator
            "config": {"tensorrt-version": "10.1"},
            "files": {
                "cpp/plugins/rope/ropePlugin.cpp": creator_cpp("RotaryEmbedding"),
                "models/rope.onnx": onnx_model(onnx_node("RotaryEmbedding", "trt_edgellm", alpha=1.0), opsets=(("", 23), ("trt_edgellm", 1))),
            },
        },
        {
            # a multi-backend exporter: mmx::Gelu and ncnn::LSTM are emitted only for ncnn (a decorator's backend=
            # argument), not routes to TensorRT plugins
            "files": {
                "csrc/backend_ops/tensorrt/foo/fooPlugin.cpp": creator_cpp("FooPlugin"),
                "mmx/symbolics.py": multi_backend_py("FooPlugin"),
            },
        },
    ]
    INVALID = [
        {
            "files": {
                "cpp/plugins/rope/ropePlugin.cpp": creator_cpp("RotaryEmbedding"),
                "models/rope.onnx": onnx_model(onnx_node("RotaryEmbedding", "trt_edgellm", alpha=1.0), opsets=(("", 23), ("trt_edgellm", 1))),
            },
            "expect": [("models/rope.onnx", 1, "TensorRT's ONNX parser imports op_type 'RotaryEmbedding' with its built-in importer (it does not look at the domain 'trt_edgellm')")],
        },
        {
            "files": {
                "cpp/plugins/rope/ropePlugin.cpp": creator_cpp("Attention"),
                "py/translate.py": onnxscript_py("Attention"),
            },
            "expect": [("py/translate.py", 7, "ONNX node 'trt_edgellm::Attention' emitted here is imported by TensorRT's built-in 'Attention' importer")],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        builtins = builtin_ops(index)
        if not builtins:
            return
        known = known_creators(index)
        builtin_domains = set(index.profile.builtin_domains) | set(DEFAULT_DOMAINS)

        def related(op: str) -> list[Related]:
            return [Related(k.span, f"{k.source} registers '{op}' (version {k.version!r}), never reached from ONNX") for k in known.get(op, []) if k.span][:3]

        hits = [(m, n) for m in index.models for n in m.nodes
                if n.op_type in builtins and n.domain not in builtin_domains and index.is_model_plugin_domain(n.domain)
                and imports(index, n.op_type, m.span.path)]  # the importer of the release the model targets
        for _key, items in group(hits, key=lambda it: (it[0].span.path, it[1].op_type, it[1].domain)):
            n = items[0][1]
            yield self.diag(
                n.span,
                f"{where([it[1] for it in items])}: TensorRT's ONNX parser imports op_type '{n.op_type}' with its built-in "
                f"importer (it does not look at the domain '{n.domain}'), so no plugin creator is ever asked for it",
                related=related(n.op_type),
                symbol=n.op_type,
                logical=n.logical,
            )
        for e in index.onnx_routes():
            if e.op_type not in builtins or e.domain in builtin_domains or not imports(index, e.op_type, e.span.path):
                continue
            yield self.diag(
                e.span,
                f"ONNX node '{e.domain}::{e.op_type}' emitted here is imported by TensorRT's built-in '{e.op_type}' "
                "importer (the parser dispatches on op_type, not domain), so no plugin creator is ever asked for it",
                related=related(e.op_type),
                symbol=e.op_type,
            )
