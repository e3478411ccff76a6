from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Severity
from ..base import Rule
from ..examples.python import CONVERTER_HEADER

_WHY = {
    "packet": (
        "is an OpOverloadPacket: graph nodes target a specific overload (e.g. '{key}.default'), "
        "and a packet key never equals one"
    ),
    "out": "is an out= overload: exported and AOT-traced graphs are functional and never contain it",
    "string": (
        "is a string: nodes of an ATen graph target OpOverload objects, never strings, so this key never matches"
    ),
}


class ConverterKeyForm(Rule):
    """A Dynamo converter key that can never match a graph node (a packet, an `.out` overload, a string).

    ## What it does
    Resolves the key of every `@dynamo_tensorrt_converter(key)` through imports and aliases
    (`aten = torch.ops.aten`) and reports keys of a form that never equals a node's `target` in the ATen
    graphs Torch-TensorRT converts: an `OpOverloadPacket` (`torch.ops.aten.matmul`), an out-variant overload
    (`.out`, `*_out`), or a string (`"aten::add"`). A packet key is not reported when the same converter
    function also registers an overload of that packet (`torch.ops.aten.matmul` next to
    `torch.ops.aten.matmul.default`): that key is redundant, not dead, since the overload key already matches the
    graph's nodes.

    ## Why it matters
    The converter table is a dict looked up with `node.target`, which is an `OpOverload` such as
    `torch.ops.aten.matmul.default`. A converter registered under another form is dead code: the op falls
    back to PyTorch (a graph break and a slower engine) while the converter looks present and tested.

    ## Example
    ```python
    @dynamo_tensorrt_converter(torch.ops.aten.matmul)   # packet; nodes target aten.matmul.default
    ```

    ## Fix
    Register each overload the graph contains: `torch.ops.aten.matmul.default` (and others as needed).
    """

    code = "TRT603"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "converter-key-form"
    family = "python"
    severity = Severity.WARNING

    VALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "import operator\n"
                "aten = torch.ops.aten\n"
                "@dynamo_tensorrt_converter(aten.matmul.default)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.sym_size.int)\n"
                "@dynamo_tensorrt_converter(operator.getitem)\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            }
        },
        {   # seen in Torch-TensorRT: a packet key next to an overload of that packet on the same converter is
            # redundant, not dead: the overload key already matches the graph's nodes, so the op is converted
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "@dynamo_tensorrt_converter(torch.ops.aten.matmul)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.matmul.default)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.grid_sampler_2d.default)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.grid_sampler_2d)\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            }
        },
        {   # the FX frontend's tracer produces packet targets: not judged
            "files": {
                "py/fx_conv.py": "import torch\nfrom torch_tensorrt.fx.converter_registry import tensorrt_converter\n"
                "@tensorrt_converter(torch.ops.aten.matmul)\n"
                "def conv(network, target, args, kwargs, name):\n"
                "    return args[0]\n"
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "from torch.ops import aten\n"
                "@dynamo_tensorrt_converter(aten.matmul)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.add.out)\n"
                "@dynamo_tensorrt_converter(\"aten::mul\")\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            },
            "expect": [
                ("py/conv.py", 5, "converter key torch.ops.aten.matmul of 'conv' is an OpOverloadPacket"),
                ("py/conv.py", 6, "converter key torch.ops.aten.add.out of 'conv' is an out= overload"),
                ("py/conv.py", 7, "converter key 'aten::mul' of 'conv' is a string"),
            ],
        },
        {   # an overload of another packet does not cover this one: the packet key alone is still reported
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "@dynamo_tensorrt_converter(torch.ops.aten.matmul)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.mm.default)\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            },
            "expect": [
                ("py/conv.py", 4, "converter key torch.ops.aten.matmul of 'conv' is an OpOverloadPacket: graph nodes "
                 "target a specific overload (e.g. 'torch.ops.aten.matmul.default'), and a packet key never equals one; "
                 "the op falls back to PyTorch"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        by_function: dict = {}
        for reg in index.converters:
            by_function.setdefault((reg.span.path, reg.function), []).append(reg)
        for reg in index.converters:
            if reg.registrar != "dynamo_tensorrt_converter" or reg.key_form not in _WHY:
                continue
            shown = repr(reg.key) if reg.key_form == "string" else reg.key
            tail = ""
            if reg.key_form == "packet":
                if any(
                    r.key_form == "overload" and r.key and r.key.rsplit(".", 1)[0] == reg.key
                    for r in by_function[(reg.span.path, reg.function)]
                ):
                    continue  # redundant, not dead: an overload of this packet is registered on the same converter
                tail = "; the op falls back to PyTorch"
            yield self.diag(
                reg.key_span or reg.span,
                f"converter key {shown} of '{reg.function}' " + _WHY[reg.key_form].format(key=reg.key) + tail,
                symbol=reg.function,
            )
