from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.python import CONVERTER_HEADER


class UnnamedLayer(Rule):
    """A TensorRT network layer created without a name.

    ## What it does
    Reports `net.add_<layer>(...)` / `network.add_<layer>(...)` calls (any receiver spelled `net` or
    `network`, e.g. `ctx.net`) whose layer is never named in the function: not assigned and then given
    `layer.name = ...`, not handed to another function (`set_layer_name(layer, ...)`, a helper), not
    returned (the caller may name it). `add_input` / `add_output` are not layers and are not reported.

    ## Why it matters
    Unnamed layers get generated names (`(Unnamed Layer* 42) [Shuffle]`). Engine-inspector output,
    profiles, refit weight names, TensorRT error messages and timing caches then cannot be traced back to the
    converter and graph node that created the layer, which makes every accuracy or performance bug in that
    region slow to find.

    ## Example
    ```python
    return ctx.net.add_identity(x).get_output(0)     # no name
    ```

    ## Fix
    Keep the layer and name it: `layer = ctx.net.add_identity(x); set_layer_name(layer, target, name, source_ir)`.
    """

    code = "TRT604"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "unnamed-layer"
    family = "python"
    severity = Severity.INFO
    default = False
    opt_in_why = "style: a missing layer name costs readability of engine inspection, not correctness"

    VALID = [
        {
            "files": {
                "py/impl.py": CONVERTER_HEADER
                + "def identity(ctx, target, source_ir, name, x):\n"
                "    layer = ctx.net.add_identity(x)\n"
                "    set_layer_name(layer, target, name, source_ir)\n"
                "    other = ctx.net.add_shuffle(x)\n"
                "    other.name = name + '_shuffle'\n"
                "    ctx.net.add_output(other.get_output(0))\n"
                "    return layer.get_output(0)\n"
                "def make(network, x):\n"
                "    layer = network.add_shuffle(x)\n"
                "    return layer\n"
                "def make_plugin(self, inputs, plugin):\n"
                "    return self.network.add_plugin_v3(inputs, [], plugin)\n"
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "py/impl.py": CONVERTER_HEADER
                + "def identity(ctx, target, source_ir, name, x):\n"
                "    layer = ctx.net.add_shuffle(x)\n"
                "    return ctx.net.add_identity(layer.get_output(0)).get_output(0)\n"
            },
            "expect": [
                ("py/impl.py", 5, "layer created by add_shuffle in 'identity' is never named", "identity"),
                ("py/impl.py", 6, "layer created by add_identity in 'identity' is never named", "identity"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for u in index.unnamed_layers:
            where = f" in '{u.function}'" if u.function else ""
            yield self.diag(
                u.span,
                f"the layer created by {u.method}{where} is never named: engine inspection, profiles and TensorRT "
                "errors will show a generated '(Unnamed Layer* N)' name",
                symbol=u.function or "",
            )
