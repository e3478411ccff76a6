from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.python import CONVERTER_HEADER


class ConverterDecoratorOrder(Rule):
    """A wrapper decorator sits above the converter registration, so the registered converter never runs it.

    ## What it does
    Looks at every function decorated with `@dynamo_tensorrt_converter(...)` (or the FX
    `@tensorrt_converter(...)`) and reports any other decorator written above the topmost registration.

    ## Why it matters
    Decorators apply bottom-up. The registration decorator stores the function it receives in the converter
    table and returns it; a decorator above it wraps only the module-level name, which the converter
    registry never calls. `@enforce_tensor_types(...)` above the registration silently stops enforcing
    anything: converters receive `torch.Tensor` constants where they expect `ITensor`s and fail (or build a
    wrong network) only for the models that hit that case.

    ## Example
    ```python
    @enforce_tensor_types({0: (TRTTensor,)})        # wraps the module name only
    @dynamo_tensorrt_converter(torch.ops.aten.argmax.default)
    def aten_ops_argmax(ctx, target, args, kwargs, name): ...
    ```

    ## Fix
    Put the registration decorators on top and the wrappers below them, next to the function.
    """

    code = "TRT601"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "converter-decorator-order"
    family = "python"

    VALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "@dynamo_tensorrt_converter(torch.ops.aten.argmax.default)\n"
                "@enforce_tensor_types({0: (object,)})\n"
                "def aten_ops_argmax(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "py/conv.py": CONVERTER_HEADER
                + "@enforce_tensor_types({0: (object,)})\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.argmax.default)\n"
                "@dynamo_tensorrt_converter(torch.ops.aten.argmin.default)\n"
                "def aten_ops_argmax(ctx, target, args, kwargs, name):\n"
                "    return args[0]\n"
            },
            "expect": [("py/conv.py", 4, "'@enforce_tensor_types({0: (object,)})' is above '@dynamo_tensorrt_converter(torch.ops.aten.argmax.default)'")],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        for reg in index.converters:
            for text, span in reg.wrappers_above:
                reg_text = f"{reg.registrar}({reg.key})" if reg.key else reg.registrar
                yield self.diag(
                    span,
                    f"'@{text}' is above '@{reg_text}' on '{reg.function}': the registration stores the "
                    f"undecorated function, so the converter registry never runs this wrapper",
                    related=[Related(reg.span, "the converter registration (move it above the wrapper)")],
                    symbol=reg.function,
                )
