from __future__ import annotations

from typing import Iterable

from trtlint.base.diagnostics import Diagnostic, Related
from ..base import Rule

_OP = (
    "import torch\n"
    "import torch_tensorrt\n"
    '@torch.library.custom_op("ex::scale", mutates_args=())\n'
    "def scale(x: torch.Tensor, a: float = 2.0) -> torch.Tensor:\n"
    "    return x * a\n"
)


class FakeKernelMissing(Rule):
    """A torch custom op used for Torch-TensorRT plugin generation has no fake (meta) kernel.

    ## What it does
    For every op id passed to `generate_plugin(...)` or Torch-TensorRT's `custom_op(...)` whose torch custom
    op is defined in the project (`@torch.library.custom_op("ns::op")`, `torch.library.define("ns::op(...)")`),
    looks for its fake kernel: `@torch.library.register_fake("ns::op")` (also `impl_abstract`, a `"Meta"`
    `torch.library.impl`, or `@<op function>.register_fake`). Reports the generation call when there is none.

    ## Why it matters
    `generate_plugin` derives the plugin's shape function by running the op on fake tensors, and
    `torch.export` needs the fake kernel to trace the op at all. Without one, plugin generation (or export)
    fails with an unsupported-operator error on the machine that builds the engine.

    ## Example
    ```python
    @torch.library.custom_op("ex::scale", mutates_args=())
    def scale(x: torch.Tensor, a: float = 2.0) -> torch.Tensor: ...
    torch_tensorrt.dynamo.conversion.plugins.custom_op("ex::scale")   # no register_fake("ex::scale")
    ```

    ## Fix
    Add `@torch.library.register_fake("ex::scale")` returning an output of the right shape and dtype.
    """

    code = "TRT607"
    reads = frozenset({"converters", "files", "py_classes", "py_enqueues", "py_plugin_fields", "py_signatures",
                        "qdp_defs", "torch_op_uses", "trt_api_uses", "unnamed_layers"})
    name = "fake-kernel-missing"
    family = "python"

    VALID = [
        {
            "files": {
                "ops.py": _OP
                + '@torch.library.register_fake("ex::scale")\n'
                "def _(x, a=2.0):\n"
                "    return torch.empty_like(x)\n",
                "gen.py": "import torch_tensorrt\nimport ops\n"
                'torch_tensorrt.dynamo.conversion.plugins.custom_op("ex::scale", supports_dynamic_shapes=True)\n',
            }
        },
        {
            "files": {
                "ops.py": _OP
                + "@scale.register_fake\n"
                "def _(x, a=2.0):\n"
                "    return torch.empty_like(x)\n"
                'torch_tensorrt.dynamo.conversion.plugins.generate_plugin("ex::scale")\n',
            }
        },
    ]
    INVALID = [
        {
            "files": {
                "ops.py": _OP,
                "gen.py": "import torch_tensorrt\nimport ops\n"
                'torch_tensorrt.dynamo.conversion.plugins.custom_op("ex::scale", supports_dynamic_shapes=True)\n',
            },
            "expect": [("gen.py", 3, "custom op 'ex::scale' has no fake (meta) kernel")],
        }
    ]

    def check(self, index) -> Iterable[Diagnostic]:
        defs, fakes = {}, set()
        for u in index.torch_op_uses:
            if u.op is None:
                continue
            if u.kind == "define":
                defs.setdefault(u.op, u)
            elif u.kind == "fake":
                fakes.add(u.op)
        for u in index.torch_op_uses:
            if u.kind not in ("generate_plugin", "custom_op") or u.op is None:
                continue
            d = defs.get(u.op)
            if d is None or u.op in fakes:
                continue
            what = "generate_plugin" if u.kind == "generate_plugin" else "custom_op"
            yield self.diag(
                u.span,
                f"custom op '{u.op}' has no fake (meta) kernel: {what} derives the plugin's output shapes by "
                f"running it on fake tensors, and torch.export cannot trace it; add "
                f"@torch.library.register_fake(\"{u.op}\")",
                related=[Related(d.span, f"'{u.op}' is defined here" + (f" ('{d.function}')" if d.function else ""))],
                symbol=u.op,
            )
