from __future__ import annotations

from typing import Iterable, Optional

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.python import CONVERTER_HEADER


def callable_with_two_positionals(params) -> Optional[str]:
    """Why ``f(node, settings)`` fails for these parameters, or None when it works."""
    positional = [p for p in params if p.kind in ("posonly", "pos")]
    vararg = any(p.kind == "vararg" for p in params)
    required = [p for p in positional if not p.has_default]
    kw_required = [p for p in params if p.kind == "kwonly" and not p.has_default]
    if len(required) > 2:
        return f"it requires {len(required)} positional arguments ({', '.join(p.name for p in required)})"
    if len(positional) < 2 and not vararg:
        if not positional:
            return "it takes no positional arguments"
        return f"it takes only {len(positional)} positional argument ({positional[0].name})"
    if kw_required:
        return f"it requires the keyword-only argument(s) {', '.join(p.name for p in kw_required)}"
    return None


class ValidatorSignature(Rule):
    """A converter's capability validator cannot be called as `validator(node, settings)`.

    ## What it does
    Resolves the `capability_validator=` of every converter registration (a lambda, a function in the same
    file, or a module-level function imported from another project file) and checks that it accepts exactly
    the two positional arguments the converter registry passes: the `torch.fx.Node` and the
    `CompilationSettings`.

    ## Why it matters
    The registry calls `candidate.capability_validator(node, compilation_settings)` while partitioning. A
    validator written as `lambda node: ...` raises `TypeError` on the first graph containing that op, inside
    the partitioner, far from the converter that is wrong.

    ## Example
    ```python
    @dynamo_tensorrt_converter(torch.ops.aten.cat.default, capability_validator=lambda node: len(node.args) > 1)
    ```

    ## Fix
    Accept both arguments: `def cat_validator(node: Node, settings: CompilationSettings = None) -> bool`.
    """

    code = "TRT602"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "validator-signature"
    family = "python"

    VALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "from py.validators import two_arg_validator\n"
                "def cat_validator(node, settings=None):\n"
                "    return True\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.cat.default, capability_validator=cat_validator)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.mm.default, capability_validator=lambda node, settings: True)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.bmm.default, capability_validator=two_arg_validator)\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n",
                "py/validators.py": "def two_arg_validator(node, *rest):\n    return True\n",
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "from py.validators import one_arg_validator\n"
                "def cat_validator(node, settings, extra):\n"
                "    return True\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.cat.default, capability_validator=cat_validator)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.mm.default, capability_validator=lambda node: True)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.bmm.default, capability_validator=one_arg_validator)\n"
                "def conv(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n",
                "py/validators.py": "def one_arg_validator(node):\n    return True\n",
            },
            "expect": [
                ("py/conv.py", 7, "capability validator 'cat_validator' of the converter for torch.ops.aten.cat.default cannot be called as validator(node, settings): it requires 3 positional arguments"),
                ("py/conv.py", 8, "'<lambda>' of the converter for torch.ops.aten.mm.default cannot be called as validator(node, settings): it takes only 1 positional argument (node)"),
                ("py/conv.py", 9, "'one_arg_validator' of the converter for torch.ops.aten.bmm.default"),
            ],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        sigs = {}
        for s in index.py_signatures:
            sigs[f"{s.module}.{s.name}"] = s
        for reg in index.converters:
            if reg.validator is None:
                continue
            params = reg.validator_params
            related = []
            if params is None and reg.validator_ref:
                sig = _find(sigs, reg.validator_ref)
                if sig is None:
                    continue
                params = sig.params
                related.append(Related(sig.span, f"'{sig.name}' is defined here"))
            if params is None:
                continue
            why = callable_with_two_positionals(params)
            if why is None:
                continue
            if reg.validator != "<lambda>" and not related and params and params[0].span is not None:
                related.append(Related(params[0].span, f"the parameters of '{reg.validator}'"))
            yield self.diag(
                reg.validator_span or reg.span,
                f"capability validator '{reg.validator}' of the converter for {reg.key} cannot be called as "
                f"validator(node, settings): {why}",
                related=related,
                symbol=reg.function,
            )


def _find(sigs: dict, ref: str):
    if ref in sigs:
        return sigs[ref]
    # a package prefix the path does not carry (py/torch_tensorrt/... -> torch_tensorrt...), or the reverse
    cands = [s for q, s in sigs.items() if q.endswith("." + ref) or ref.endswith("." + q)]
    return cands[0] if len(cands) == 1 else None
