from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule
from ..examples.python import QDP_HEADER, qdp_register
from ._qdp import companion_problems, register_problems


class QdpSignature(Rule):
    """A `tensorrt.plugin` register/impl/autotune/aot_impl function that TensorRT's own validation rejects.

    ## What it does
    Applies the checks `tensorrt.plugin` runs when the decorators execute (`_validate.py` in the TensorRT
    Python package) to the function signatures as written:
    - `@trtp.register`: only positional-or-keyword / keyword-only arguments, every one annotated, no
      defaults; `TensorDesc` inputs first, then attributes; attribute names other than `outputs`, `stream`,
      `tactic`; attribute types `int`, `float`, `bytes`, `bool`, `str` or `numpy.typing.NDArray[dtype]` of a
      serializable dtype (a bare `np.ndarray` only with `lazy_register=True`); a return annotation of
      `TensorDesc` or `Tuple[TensorDesc, ...]`.
    - `@trtp.impl` / `@trtp.autotune` / `@trtp.aot_impl` (matched to the register function by plugin id,
      across files): the argument names must be exactly the registered tensors, then a subset of the
      registered attributes in registration order, then `outputs, stream[, tactic]` (impl), `outputs`
      (autotune) or `outputs, tactic` (aot_impl); annotations, where given, must agree with the
      registration; return annotations as TensorRT requires.

    ## Why it matters
    These errors are raised at import time of the plugin module, on a machine with TensorRT, as a
    `ValueError` from inside the decorator. Finding them in review or pre-commit saves a GPU round-trip.

    ## Example
    ```python
    @trtp.register("my::add_one")
    def desc(x: trtp.TensorDesc, block: int = 256) -> trtp.TensorDesc: ...   # default not supported
    @trtp.impl("my::add_one")
    def impl(x, outputs, block, stream): ...                                 # attributes before outputs
    ```

    ## Fix
    Follow the schema TensorRT names in the message.
    """

    code = "TRT605"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "qdp-signature"
    family = "python"

    VALID = [
        {
            "files": {
                "plugins/defs.py": QDP_HEADER
                + qdp_register(sig="x: trtp.TensorDesc, k: int, pads: npt.NDArray[np.int32]")
                + '@trtp.autotune("my::add_one")\n'
                "def add_one_autotune(x: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:\n"
                '    return [trtp.AutoTuneCombination("FP32, FP32")]\n',
                "plugins/impl.py": QDP_HEADER
                + '@trtp.impl("my::add_one")\n'
                "def add_one_impl(x: trtp.Tensor, pads: npt.NDArray[np.int32], outputs: Tuple[trtp.Tensor], stream: int, tactic: int) -> None:\n"
                "    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):\n"
                "        torch.as_tensor(outputs[0], device='cuda').copy_(torch.as_tensor(x, device='cuda') + 1)\n",
            }
        }
    ]
    INVALID = [
        {
            "files": {
                "plugins/defs.py": QDP_HEADER
                + qdp_register(sig="x: trtp.TensorDesc, arr: np.ndarray, k: int = 2", ret="Tuple[int]"),
                "plugins/impl.py": QDP_HEADER
                + '@trtp.impl("my::add_one")\n'
                "def add_one_impl(x, outputs, k, stream) -> None:\n"
                "    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):\n"
                "        pass\n"
                '@trtp.autotune("my::add_one")\n'
                "def add_one_autotune(x: trtp.TensorDesc, k: float, outputs: Tuple[trtp.TensorDesc]):\n"
                "    return []\n",
            },
            "expect": [
                ("plugins/defs.py", 7, "argument 'k' has a default value"),
                ("plugins/defs.py", 7, "attribute 'arr' is annotated numpy.ndarray: without lazy_register"),
                ("plugins/defs.py", 7, "the register function returns typing.Tuple[int]"),
                ("plugins/impl.py", 7, "the impl signature (x, outputs, k, stream) does not match the schema TensorRT expects: (x, k, outputs, stream)"),
                ("plugins/impl.py", 11, "attribute 'k' is annotated float but registered as int"),
            ],
        },
        {
            "files": {
                "plugins/defs.py": QDP_HEADER + qdp_register(sig="outputs: int, x: trtp.TensorDesc, *rest"),
            },
            "expect": [
                ("plugins/defs.py", 7, "the first argument 'outputs' is an attribute (int): TensorDesc arguments must come first"),
                ("plugins/defs.py", 7, "'outputs' is not allowed as a plugin attribute name"),
                ("plugins/defs.py", 7, "tensor argument 'x' comes after an attribute"),
                ("plugins/defs.py", 7, "argument 'rest' is *args"),
            ],
        },
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        registers = {}
        for d in index.qdp_defs:
            if d.kind == "register" and d.plugin_id is not None:
                registers.setdefault(d.plugin_id, d)
        for d in index.qdp_defs:
            if d.kind == "register":
                for span, msg in register_problems(d):
                    yield self.diag(span, f"@trtp.register(\"{d.plugin_id}\") on '{d.function}': {msg}", symbol=d.plugin_id or d.function)
                continue
            reg = registers.get(d.plugin_id) if d.plugin_id is not None else None
            if reg is None:
                continue  # TRT606's business
            for span, msg in companion_problems(d, reg):
                yield self.diag(
                    span,
                    f"@trtp.{d.kind}(\"{d.plugin_id}\") on '{d.function}': {msg}",
                    related=[Related(reg.span, f"registered here by '{reg.function}'")],
                    symbol=d.plugin_id or d.function,
                )
